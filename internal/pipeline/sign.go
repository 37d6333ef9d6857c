package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/buildinfo"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
)

// loadSigner reads and decrypts a signing key; a test counts the calls.
var loadSigner = attest.LoadSigner

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
	s, err := loadSigner(o.SignKey)
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

// attachProvenance completes BuildKit's provenance with ours (every input
// by digest: see attest.NewProvenance), attached to the index beside the
// report, and returns the index read back with it. Skipped when the build
// asked for no provenance.
func attachProvenance(ctx context.Context, p *plan, rep *report.Report, img *attest.Image, digestRef string, ro image.RegistryOptions) (*attest.Image, error) {
	if !p.attest.Provenance {
		return img, nil
	}
	info := buildinfo.Read()
	version := info.Version
	if info.Revision != "" {
		version += "+" + info.Revision
	}
	ps, err := attest.NewProvenance(img, rep.Inputs, version)
	if err != nil {
		return nil, err
	}
	if _, err := attest.AttachProvenance(ctx, p.repository, img.IndexDigest, ps, ro); err != nil {
		return nil, err
	}
	got, err := attest.Read(ctx, digestRef, ro)
	if err != nil {
		return nil, fmt.Errorf("verify attestations: %w", err)
	}
	if got.ProvenanceDigest == "" {
		return nil, fmt.Errorf("verify: the provenance attached to %s does not read back", img.IndexDigest)
	}
	return got, nil
}
