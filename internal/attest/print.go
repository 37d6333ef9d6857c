package attest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// WriteText prints what went into the image for a terminal. Everything
// read from the registry is shown with control characters escaped.
func (img *Image) WriteText(w io.Writer) error {
	e := textsafe.Escape
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "image:\t%s\n", e(img.Ref))
	fmt.Fprintf(tw, "index:\t%s\n", e(img.IndexDigest))
	fmt.Fprintln(tw, "platforms:")
	for _, p := range img.Platforms {
		fmt.Fprintf(tw, "  %s\t%s\tprovenance: %s\tsbom: %s\n", e(p.Platform), e(p.Digest), yesNo(p.Provenance), yesNo(p.SBOM))
	}
	s := img.Report
	if s == nil {
		fmt.Fprintf(tw, "report:\tnone (no %s referrer on this index)\n", PredicateType)
		return tw.Flush()
	}
	in := s.Predicate.Inputs
	fmt.Fprintf(tw, "report:\t%s\n", e(img.ReportDigest))
	if in.Version != "" {
		fmt.Fprintf(tw, "version:\t%s\n", e(in.Version))
	}
	fmt.Fprintf(tw, "upstream:\t%s @ %s\n", e(orDash(in.Upstream)), e(in.UpstreamCommit))
	fmt.Fprintf(tw, "patches:\t%d\n", len(in.Patches))
	for _, p := range in.Patches {
		fmt.Fprintf(tw, "  %s\tsha256:%s\n", e(p.Name), e(p.SHA256))
	}
	c := in.CAPI
	fmt.Fprintf(tw, "C API:\t%s %s commit %s, tree %s\n", e(orDash(c.Source)), e(orDash(c.Repository)), e(orDash(c.Commit)), e(orDash(c.TreeHash)))
	fmt.Fprintf(tw, "  crate:\t%s (library %s, %s)\n", e(c.Crate), e(c.Library), e(c.Generation))
	if len(c.Features) > 0 {
		fmt.Fprintf(tw, "  features:\t%s\n", e(strings.Join(c.Features, ", ")))
	}
	for _, p := range c.Patches {
		fmt.Fprintf(tw, "  patch:\t%s sha256:%s\n", e(p.Name), e(p.SHA256))
	}
	t := in.Toolchains
	fmt.Fprintf(tw, "toolchains:\t%s, %s, %s; compile %s; base %s\n", e(t.Go), e(t.Rustc), e(t.Cargo), e(t.CompileMode), e(t.BaseImage))
	for _, p := range slices.Sorted(maps.Keys(t.CC)) {
		fmt.Fprintf(tw, "  cc %s:\t%s\n", e(p), e(t.CC[p]))
	}
	return tw.Flush()
}

// WriteMarkdown prints the same as tables, for a pull request or release
// notes.
func (img *Image) WriteMarkdown(w io.Writer) error {
	c := outfmt.Cell
	fmt.Fprintf(w, "**Image** %s, index %s\n\n", c(img.Ref), c(img.IndexDigest))
	rows := [][]string{{"Platform", "Digest", "Provenance", "SBOM"}}
	for _, p := range img.Platforms {
		rows = append(rows, []string{c(p.Platform), c(p.Digest), yesNo(p.Provenance), yesNo(p.SBOM)})
	}
	if err := outfmt.Table(w, rows); err != nil {
		return err
	}
	s := img.Report
	if s == nil {
		_, err := fmt.Fprintf(w, "\nNo epp-build report attestation (%s) on this index.\n", c(PredicateType))
		return err
	}
	in := s.Predicate.Inputs
	fmt.Fprintf(w, "\n**Upstream** %s at %s; **C API** %s at %s (tree %s)\n\n",
		c(orDash(in.Upstream)), c(in.UpstreamCommit), c(orDash(in.CAPI.Source+" "+in.CAPI.Repository)), c(orDash(in.CAPI.Commit)), c(orDash(in.CAPI.TreeHash)))
	rows = [][]string{{"Patch", "SHA-256"}}
	for _, p := range in.Patches {
		rows = append(rows, []string{c(p.Name), c(p.SHA256)})
	}
	for _, p := range in.CAPI.Patches {
		rows = append(rows, []string{"C API: " + c(p.Name), c(p.SHA256)})
	}
	return outfmt.Table(w, rows)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
