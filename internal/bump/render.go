package bump

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// planRows are the plan as rows of module, from, to and fixes; the
// proposed toolchain is marked as such.
func planRows(p *Plan, proposed *Bump) [][]string {
	var rows [][]string
	add := func(b Bump, what string) {
		from := b.From
		if from == "" {
			from = "-"
		}
		rows = append(rows, []string{what, from, b.To, strings.Join(b.Fixes, ", ")})
	}
	for _, b := range p.Bumps {
		add(b, b.Module)
	}
	if p.Toolchain != nil {
		add(*p.Toolchain, "go (toolchain)")
	}
	if proposed != nil {
		add(*proposed, "go (proposed: --toolchain "+proposed.To+")")
	}
	return rows
}

// WritePlan writes the bumps as a table, then the findings no release
// fixes.
func WritePlan(w io.Writer, version string, p *Plan, proposed *Bump) error {
	var b strings.Builder
	rows := planRows(p, proposed)
	if len(rows) == 0 {
		fmt.Fprintf(&b, "%s: nothing to bump\n", version)
	} else {
		fmt.Fprintf(&b, "%s: bump plan\n", version)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  MODULE\tFROM\tTO\tFIXES")
		for _, r := range rows {
			fmt.Fprintln(tw, "  "+strings.Join(r, "\t"))
		}
		tw.Flush()
	}
	for _, u := range p.Unfixed {
		fmt.Fprintf(&b, "  no release of %s fixes %s (the line has %s)\n", u.Module, strings.Join(u.IDs, ", "), u.Version)
	}
	_, err := io.WriteString(w, textsafe.EscapeLines(b.String()))
	return err
}

// WriteResult says what was written, after the plan.
func WriteResult(w io.Writer, res *Result) error {
	var b strings.Builder
	switch {
	case res.DryRun:
		fmt.Fprintf(&b, "%s: dry run, nothing written\n", res.Version)
	case !res.Written:
		fmt.Fprintf(&b, "%s: nothing written\n", res.Version)
	case res.Patch != "":
		fmt.Fprintf(&b, "%s: wrote %s (%s)\n", res.Version, res.Patch, res.Subject)
	}
	if res.Written && res.Plan.Toolchain != nil {
		fmt.Fprintf(&b, "%s: the recipe's toolchain is now %s\n", res.Version, res.Plan.Toolchain.To)
	}
	if len(res.Fixes) > 0 && res.Patch != "" {
		fmt.Fprintf(&b, "  Fixes: %s\n", strings.Join(res.Fixes, ", "))
	}
	if res.TypeCheck != nil {
		fmt.Fprintf(&b, "  %s\n", res.TypeCheck)
	}
	_, err := io.WriteString(w, textsafe.EscapeLines(b.String()))
	return err
}

// WriteMarkdown writes the plan as a table for a pull request, and what
// was written under it.
func WriteMarkdown(w io.Writer, res *Result) error {
	rows := [][]string{{"module", "from", "to", "fixes"}}
	for _, r := range planRows(res.Plan, res.Proposed) {
		for i := range r {
			r[i] = outfmt.Cell(r[i])
		}
		rows = append(rows, r)
	}
	if err := outfmt.Table(w, rows); err != nil {
		return err
	}
	if res.Patch != "" && res.Written {
		_, err := fmt.Fprintf(w, "\n%s: %s\n", outfmt.Cell(res.Patch), outfmt.Cell(res.Subject))
		return err
	}
	return nil
}
