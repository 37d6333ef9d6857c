package attest

import (
	"context"
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/image"
)

// Signed is what Sign attached: the report's digest and statement, the
// envelope's digest and the tag cosign finds it by.
type Signed struct {
	Ref       string
	Report    string
	Statement string
	Envelope  string
	Tag       string
}

// Sign is the sign command in one call: ref parsed before the key is read
// (a reference that cannot parse costs no password), the image's report
// verified, then signed with the key at keyRef (a file or env://VAR) and
// the signature read back and checked with the key's own verifier.
func Sign(ctx context.Context, ref, keyRef string, ro image.RegistryOptions) (*Signed, error) {
	if _, err := ParseReference(ref, ro); err != nil {
		return nil, err
	}
	signer, err := LoadSigner(keyRef)
	if err != nil {
		return nil, err
	}
	img, err := Verify(ctx, ref, ro)
	if err != nil {
		return nil, err
	}
	tag, err := SignReport(ctx, img, signer, ro)
	if err != nil {
		return nil, err
	}
	if err := img.CheckSignature(ctx, signer.Verifier(), ro); err != nil {
		return nil, err
	}
	return &Signed{Ref: ref, Report: img.ReportDigest, Statement: img.ReportStatement, Envelope: img.Signature, Tag: tag}, nil
}

// WriteSigned says on w what Sign attached.
func WriteSigned(w io.Writer, s *Signed) {
	fmt.Fprintf(w, "signed %s: report %s (statement %s), envelope %s in %s\n", s.Ref, s.Report, s.Statement, s.Envelope, s.Tag)
}
