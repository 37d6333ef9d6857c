package pipeline

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
)

// attestPushed attaches the report to the pushed index as an in-toto
// referrer, then reads the index back and checks that every platform has
// the attestations the build asked BuildKit for and that the report's
// subject and digests match the index. Runs before smoke and tag: an image
// without them is never tagged.
func attestPushed(ctx context.Context, p *plan, rep *report.Report, v *image.Verified, digestRef string, ro image.RegistryOptions, stdout io.Writer) error {
	t0 := time.Now()
	var images []attest.PlatformImage
	for _, img := range v.Images {
		images = append(images, attest.PlatformImage{Platform: img.Platform, Digest: img.Digest})
	}
	stmt, err := attest.NewStatement(p.repository, v.IndexDigest, rep.Inputs, images)
	if err != nil {
		return err
	}
	ref, err := attest.Attach(ctx, p.repository, v.IndexDigest, stmt, ro)
	if err != nil {
		return err
	}
	got, err := attest.Read(ctx, digestRef, ro)
	if err != nil {
		return fmt.Errorf("verify attestations: %w", err)
	}
	if got, err = attachProvenance(ctx, p, rep, got, digestRef, ro); err != nil {
		return err
	}
	if err := got.Check(p.attest.Want(true)); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if err := signPushed(ctx, p, got, ro, stdout); err != nil {
		return err
	}
	rep.Time("attest", time.Since(t0))
	fmt.Fprintf(stdout, "attestations: %s; report %s (%s)\n", describe(p.attest), ref, attest.PredicateType)
	return nil
}

// attestTarball checks BuildKit's attestations inside an OCI tarball; the
// report referrer needs a registry, so it is skipped with a notice.
func attestTarball(path string, p *plan, stdout, stderr io.Writer) error {
	idx, closeTar, err := image.OpenOCITar(path)
	if err != nil {
		return err
	}
	defer closeTar()
	platforms, err := attest.ReadIndex(idx)
	if err != nil {
		return fmt.Errorf("OCI tarball %s: %w", path, err)
	}
	img := &attest.Image{Ref: path, Platforms: platforms}
	if err := img.Check(p.attest.Want(false)); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	fmt.Fprintf(stdout, "attestations: %s\n", describe(p.attest))
	fmt.Fprintf(stderr, "attest: report attestation skipped (it is a registry referrer; pass --push)\n")
	return nil
}

func describe(r attest.Request) string {
	var parts []string
	if r.Provenance {
		parts = append(parts, "provenance (mode="+r.ProvenanceMode+")")
	}
	if r.SBOM {
		parts = append(parts, "SBOM")
	}
	if len(parts) == 0 {
		return "none from BuildKit"
	}
	return strings.Join(parts, " and ") + " per platform"
}
