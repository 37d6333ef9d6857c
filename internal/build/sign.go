package build

import (
	"context"
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
)

// checkSigning loads --sign-key before any work, so that a missing file or
// a wrong password fails the build before BuildKit is asked for anything.
func (o *Options) checkSigning(p *plan) []string {
	if o.SignKey == "" {
		return nil
	}
	var problems []string
	if !o.Push {
		problems = append(problems, "--sign-key signs the report attestation, a registry referrer: pass --push")
	}
	s, err := attest.LoadSigner(o.SignKey)
	if err != nil {
		return append(problems, err.Error())
	}
	p.signer = s
	return problems
}

// signPushed signs the report attestation read back from the registry
// (img) with the build's key, stores the signature where cosign looks for
// it, and checks it reads back and verifies with the key's public half.
func signPushed(ctx context.Context, p *plan, img *attest.Image, ro image.RegistryOptions, stdout io.Writer) error {
	if p.signer == nil {
		return nil
	}
	tag, err := attest.SignReport(ctx, img, p.signer, ro)
	if err != nil {
		return fmt.Errorf("sign: %w", err)
	}
	if err := img.CheckSignature(ctx, p.signer.Verifier(), ro); err != nil {
		return fmt.Errorf("sign: the signature does not verify: %w", err)
	}
	fmt.Fprintf(stdout, "signed: report %s, envelope %s in %s\n", img.ReportDigest, img.Signature, tag)
	return nil
}
