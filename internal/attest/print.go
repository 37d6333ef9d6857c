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
	line := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%-12s"+format+"\n", append([]any{label + ":"}, args...)...)
	}
	line("image", "%s", e(img.Ref))
	line("index", "%s", e(img.IndexDigest))
	fmt.Fprintln(w, "platforms:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range img.Platforms {
		fmt.Fprintf(tw, "  %s\t%s\tprovenance: %s\tsbom: %s\n", e(p.Platform), e(p.Digest), p.status("provenance", p.Provenance), p.status("sbom", p.SBOM))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	img.writeUnfetched(w)
	img.writeScansText(w)
	s := img.Report
	switch {
	case s == nil && len(img.Conflicting) > 0:
		line("report", "none shown: %d referrers claim to be this index's report and disagree (%s)", len(img.Conflicting), e(strings.Join(img.Conflicting, ", ")))
		return nil
	case s == nil:
		line("report", "none (no %s referrer on this index)", PredicateType)
		return nil
	}
	in := s.Predicate.Inputs
	line("report", "%s", e(img.ReportDigest))
	if in.Version != "" {
		line("version", "%s", e(in.Version))
	}
	line("upstream", "%s at %s", e(orDash(in.Upstream)), e(in.UpstreamCommit))
	if m := in.Module; m != nil {
		line("  module", "%s@%s (%d Go modules with hashes)", e(m.Path), e(orDash(m.Version)), len(in.GoModules))
	}
	line("patches", "%d", len(in.Patches))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range in.Patches {
		fmt.Fprintf(tw, "  %s\tsha256:%s\n", e(p.Name), e(p.SHA256))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	c := in.CAPI
	line("C API", "%s", e(joinSet(c.Source, c.Repository, "at "+orDash(c.Commit), "tree "+orDash(c.TreeHash))))
	line("  crate", "%s", e(joinSet(c.Crate, c.Version, "library "+orDash(c.Library), "generation "+orDash(c.Generation))))
	if len(c.Features) > 0 {
		line("  features", "%s", e(strings.Join(c.Features, ", ")))
	}
	for _, p := range c.Patches {
		line("  patch", "%s sha256:%s", e(p.Name), e(p.SHA256))
	}
	t := in.Toolchains
	line("toolchains", "%s", e(joinSet(t.Go, t.Rustc, t.Cargo)))
	for _, p := range slices.Sorted(maps.Keys(t.CC)) {
		line("  cc", "%s: %s", e(p), e(t.CC[p]))
	}
	if t.CompileMode != "" || t.BaseImage != "" {
		line("  compile", "%s", e(joinSet(t.CompileMode, "base "+orDash(t.BaseImage), t.BuilderImage)))
	}
	if img.ProvenanceDigest != "" {
		line("provenance", "%s (%s, every input by digest)", e(img.ProvenanceDigest), SLSAProvenanceV1)
	}
	return nil
}

// WriteWarnings prints what reading the referrers skipped, escaped: the
// text quotes the registry. They are not what the image holds, so they go
// to stderr, not into the text or markdown document (-o json keeps them
// as warnings).
func (img *Image) WriteWarnings(w io.Writer) {
	for _, warning := range img.Warnings {
		fmt.Fprintf(w, "warning: %s\n", textsafe.Escape(warning))
	}
}

// joinSet joins the non-empty parts with spaces.
func joinSet(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// WriteMarkdown prints the same as tables, for a pull request or release
// notes.
func (img *Image) WriteMarkdown(w io.Writer) error {
	c := outfmt.Cell
	fmt.Fprintf(w, "**Image** %s, index %s\n\n", c(img.Ref), c(img.IndexDigest))
	rows := [][]string{{"Platform", "Digest", "Provenance", "SBOM"}}
	for _, p := range img.Platforms {
		rows = append(rows, []string{c(p.Platform), c(p.Digest), c(p.status("provenance", p.Provenance)), c(p.status("sbom", p.SBOM))})
	}
	if err := outfmt.Table(w, rows); err != nil {
		return err
	}
	for _, p := range img.Platforms {
		for _, u := range p.Unfetched {
			fmt.Fprintf(w, "\n> **Not fetched:** %s %s\n", c(p.Platform), c(u.String()))
		}
	}
	img.writeScansMarkdown(w)
	s := img.Report
	switch {
	case s == nil && len(img.Conflicting) > 0:
		_, err := fmt.Fprintf(w, "\nNo report shown: %d referrers claim to be this index's report and disagree (%s).\n", len(img.Conflicting), c(strings.Join(img.Conflicting, ", ")))
		return err
	case s == nil:
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
	if err := outfmt.Table(w, rows); err != nil {
		return err
	}
	if img.ProvenanceDigest != "" {
		_, err := fmt.Fprintf(w, "\n**Provenance** %s (%s, every input by digest)\n", c(img.ProvenanceDigest), c(SLSAProvenanceV1))
		return err
	}
	return nil
}

// status is "yes", "no", or what of that attestation could not be
// fetched ("missing (blob sha256:… 404)").
func (p Platform) status(what string, ok bool) string {
	if ok {
		return "yes"
	}
	for _, u := range p.Unfetched {
		if u.What == what {
			return textsafe.Escape(strings.TrimPrefix(u.String(), what+": "))
		}
	}
	return "no"
}

// writeUnfetched lists every manifest or blob that could not be fetched,
// by platform, escaped: the reasons quote the registry.
func (img *Image) writeUnfetched(w io.Writer) {
	for _, p := range img.Platforms {
		for _, u := range p.Unfetched {
			fmt.Fprintf(w, "not fetched: %s %s\n", textsafe.Escape(p.Platform), textsafe.Escape(u.String()))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
