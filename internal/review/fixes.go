package review

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/textsafe"
	"github.com/epp-build/epp-build/internal/trailer"
)

// Fixes are the known vulnerabilities a newer line fixes that an older
// one does not: the Fixes: trailers of its patches and its Go toolchain.
type Fixes struct {
	Findings []FixedFinding `json:"findings"`
	// Toolchain is the move of the Go the line is built with, when the
	// two recipes name different ones.
	Toolchain *ToolchainMove `json:"toolchain,omitempty"`
}

// FixedFinding is one Fixes: trailer and the patch that carries it.
type FixedFinding struct {
	ID      string `json:"id"`
	Patch   string `json:"patch"`
	Subject string `json:"subject"`
}

// ToolchainMove is a change of the recipe's toolchain; "" is a recipe
// without one, built with the Go at hand.
type ToolchainMove struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// String says the move as release notes do: "Go go1.26.8 → go1.26.10".
func (m ToolchainMove) String() string {
	return "Go " + goOrUnpinned(m.From) + " → " + goOrUnpinned(m.To)
}

func goOrUnpinned(v string) string {
	if v == "" {
		return "unpinned (the Go at hand)"
	}
	return v
}

// osvID is a Go vulnerability database id, the first word of a Fixes:
// trailer that names one (git's other use of Fixes:, a commit, is not).
var osvID = regexp.MustCompile(`^GO-[0-9]{4}-[0-9]{4,}$`)

// fixedIDs are the ids of entries' Fixes: trailers, in series order, each
// once, with the entry that first carries it.
func fixedIDs(entries []Entry) ([]string, map[string]Entry) {
	var order []string
	by := map[string]Entry{}
	for _, e := range entries {
		if e.patch == nil {
			continue
		}
		for _, v := range trailer.Parse(e.patch.Header.Body).Values("Fixes") {
			fields := strings.Fields(v)
			if len(fields) == 0 || !osvID.MatchString(fields[0]) {
				continue
			}
			if _, seen := by[fields[0]]; !seen {
				by[fields[0]] = e
				order = append(order, fields[0])
			}
		}
	}
	return order, by
}

// CompareFixes lists what version fixes that since does not, both under
// root.
func CompareFixes(root, since, version string) (Fixes, error) {
	var rs [2]*recipe.Recipe
	var logs [2][]Entry
	for i, v := range []string{since, version} {
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			return Fixes{}, err
		}
		if logs[i], err = Log(r); err != nil {
			return Fixes{}, err
		}
		rs[i] = r
	}
	_, old := fixedIDs(logs[0])
	ids, by := fixedIDs(logs[1])
	f := Fixes{Findings: []FixedFinding{}}
	for _, id := range ids {
		if _, had := old[id]; !had {
			f.Findings = append(f.Findings, FixedFinding{ID: id, Patch: by[id].File, Subject: by[id].Subject})
		}
	}
	if rs[0].Toolchain != rs[1].Toolchain {
		f.Toolchain = &ToolchainMove{From: rs[0].Toolchain, To: rs[1].Toolchain}
	}
	return f, nil
}

// none says there is nothing to list.
func (f Fixes) none() bool { return len(f.Findings) == 0 && f.Toolchain == nil }

// writeFixes prints the fixes section for a terminal.
func writeFixes(w io.Writer, f Fixes) error {
	fmt.Fprintln(w, "fixes:")
	if f.none() {
		_, err := fmt.Fprintln(w, "  no Fixes: trailer added, no toolchain move")
		return err
	}
	if f.Toolchain != nil {
		fmt.Fprintf(w, "  %s\n", textsafe.Escape(f.Toolchain.String()))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, x := range f.Findings {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", textsafe.Escape(x.ID), textsafe.Escape(x.Patch), textsafe.Escape(x.Subject))
	}
	return tw.Flush()
}

// writeFixesMarkdown prints the fixes section for a pull request.
func writeFixesMarkdown(w io.Writer, f Fixes) error {
	fmt.Fprintf(w, "### Fixes\n\n")
	if f.none() {
		_, err := fmt.Fprintf(w, "No `Fixes:` trailer added, no toolchain move.\n\n")
		return err
	}
	if f.Toolchain != nil {
		fmt.Fprintf(w, "- Toolchain: %s\n\n", outfmt.Cell(f.Toolchain.String()))
	}
	if len(f.Findings) == 0 {
		return nil
	}
	rows := [][]string{{"Finding", "Patch", "File"}}
	for _, x := range f.Findings {
		// osvID admitted only GO-YYYY-NNNN, which is safe in a link.
		rows = append(rows, []string{"[" + x.ID + "](https://pkg.go.dev/vuln/" + x.ID + ")", outfmt.Cell(x.Subject), code(x.Patch)})
	}
	if err := outfmt.Table(w, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
