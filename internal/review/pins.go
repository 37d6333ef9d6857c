package review

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Pin is one side of a pin comparison: the ref and commit a recipe names.
type Pin struct {
	Repository string `json:"repository,omitempty"`
	Ref        string `json:"ref,omitempty"`
	Commit     string `json:"commit,omitempty"`
}

// Label is the pin as a reader names it: "v1.2.1 (206d40dca75d)", or the
// short commit alone when the ref is the commit.
func (p Pin) Label() string {
	c := gitformat.Short(p.Commit)
	switch {
	case p.Commit == "" && p.Ref == "":
		return "none"
	case p.Ref == "" || p.Ref == p.Commit:
		return c
	}
	return p.Ref + " (" + c + ")"
}

// PinMove compares one pin (the GAIE upstream or the C API) of two
// versions; Commits are the upstream commits between them that touch
// files the series patch, when the history could be read (else
// HistoryNote says why not).
type PinMove struct {
	From  Pin  `json:"from"`
	To    Pin  `json:"to"`
	Moved bool `json:"moved"`
	// HistoryRead says Commits were looked up (a nil History skips it).
	HistoryRead bool            `json:"historyRead"`
	Commits     []source.Commit `json:"commits,omitempty"`
	// Note says which way the commits go, when the second pin is the
	// older one: part of the result.
	Note string `json:"note,omitempty"`
	// HistoryNote is why the history could not be read: not the result,
	// so the text and markdown documents leave it out and a notice on
	// stderr says it (Notices).
	HistoryNote string `json:"historyNote,omitempty"`
	historyErr  error
}

// Pins are the upstream and C API pins of two versions.
type Pins struct {
	Upstream PinMove `json:"upstream"`
	CAPI     PinMove `json:"capi"`
}

// History reads the upstream history of a repository: the commits in to
// and not in from that touch paths (the source stage, wired by the
// caller; nil = do not look).
type History func(ctx context.Context, repository, from, to string, paths []string) ([]source.Commit, error)

func upstreamPin(u recipe.Upstream) Pin {
	return Pin{Repository: u.Repository, Ref: u.Ref, Commit: u.Commit}
}

func capiPin(c *recipe.CAPI) Pin {
	if c == nil {
		return Pin{}
	}
	return Pin{Repository: c.Repository, Ref: c.Ref, Commit: c.Commit}
}

// ComparePins compares the pins of versions a and b under root and, when
// the upstream moved and history is set, lists the upstream commits
// between them that touch a file either series patches.
func ComparePins(ctx context.Context, root, a, b string, history History) (Pins, error) {
	var rs [2]*recipe.Recipe
	var files []string
	seen := map[string]bool{}
	for i, v := range []string{a, b} {
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			return Pins{}, err
		}
		rs[i] = r
		entries, err := Log(r)
		if err != nil {
			return Pins{}, err
		}
		for _, e := range entries {
			for _, f := range e.Files {
				if !seen[f] {
					seen[f] = true
					files = append(files, f)
				}
			}
		}
	}
	sort.Strings(files)
	p := Pins{
		Upstream: PinMove{From: upstreamPin(rs[0].Upstream), To: upstreamPin(rs[1].Upstream)},
		CAPI:     PinMove{From: capiPin(rs[0].CAPI), To: capiPin(rs[1].CAPI)},
	}
	p.Upstream.Moved = p.Upstream.From.Commit != p.Upstream.To.Commit
	p.CAPI.Moved = p.CAPI.From.Commit != p.CAPI.To.Commit
	if !p.Upstream.Moved || history == nil {
		return p, nil
	}
	from, to := p.Upstream.From.Commit, p.Upstream.To.Commit
	commits, err := history(ctx, rs[1].Upstream.Repository, from, to, files)
	if err == nil && len(commits) == 0 {
		// b may be the older pin: then the commits are those b lacks.
		commits, err = history(ctx, rs[1].Upstream.Repository, to, from, files)
		if err == nil && len(commits) > 0 {
			p.Upstream.Note = "the commits are in " + a + "'s pin and not in " + b + "'s"
		}
	}
	if err != nil {
		p.Upstream.HistoryNote = fmt.Sprintf("the upstream history could not be read: %v", err)
		p.Upstream.historyErr = err
		return p, nil
	}
	p.Upstream.Commits, p.Upstream.HistoryRead = commits, true
	return p, nil
}

// historyCauseLen is the most characters of the history's error a notice
// quotes, so that the notice stays one line.
const historyCauseLen = 90

// Notices say on stderr what the pins could not show: an upstream history
// that could not be read, by its cause (the whole of it behind -v and in
// the JSON document).
func (p Pins) Notices() []outfmt.Notice {
	m := p.Upstream
	if m.HistoryNote == "" {
		return nil
	}
	return []outfmt.Notice{{
		Line:   "upstream commits between the pins not listed: " + redact.Cause(m.historyErr, historyCauseLen),
		Detail: m.HistoryNote,
	}}
}

// WritePins prints the two pins and the upstream commits between them.
func WritePins(w io.Writer, p Pins) error {
	fmt.Fprintf(w, "upstream: %s -> %s%s\n", textsafe.Escape(p.Upstream.From.Label()), textsafe.Escape(p.Upstream.To.Label()), unchanged(p.Upstream))
	if p.CAPI.From != (Pin{}) || p.CAPI.To != (Pin{}) {
		fmt.Fprintf(w, "C API:    %s -> %s%s\n", textsafe.Escape(p.CAPI.From.Label()), textsafe.Escape(p.CAPI.To.Label()), unchanged(p.CAPI))
	}
	if p.Upstream.Note != "" {
		fmt.Fprintf(w, "  %s\n", textsafe.Escape(p.Upstream.Note))
	}
	if p.Upstream.HistoryRead {
		fmt.Fprintf(w, "  %d upstream commit(s) between them touch patched files\n", len(p.Upstream.Commits))
	}
	for _, c := range p.Upstream.Commits {
		fmt.Fprintf(w, "    %s %s\n", gitformat.Short(c.Hash), textsafe.Escape(c.Subject))
	}
	_, err := fmt.Fprintln(w)
	return err
}

func unchanged(m PinMove) string {
	if m.Moved {
		return ""
	}
	return " (unchanged)"
}

// WritePinsMarkdown is WritePins for a pull request.
func WritePinsMarkdown(w io.Writer, p Pins) error {
	rows := [][]string{{"Pin", "From", "To"}}
	rows = append(rows, []string{"GAIE upstream", "`" + outfmt.Cell(p.Upstream.From.Label()) + "`", "`" + outfmt.Cell(p.Upstream.To.Label()) + "`" + unchanged(p.Upstream)})
	if p.CAPI.From != (Pin{}) || p.CAPI.To != (Pin{}) {
		rows = append(rows, []string{"C API", "`" + outfmt.Cell(p.CAPI.From.Label()) + "`", "`" + outfmt.Cell(p.CAPI.To.Label()) + "`" + unchanged(p.CAPI)})
	}
	if err := outfmt.Table(w, rows); err != nil {
		return err
	}
	if p.Upstream.Note != "" {
		fmt.Fprintf(w, "\n%s\n", outfmt.Cell(p.Upstream.Note))
	}
	if len(p.Upstream.Commits) > 0 {
		fmt.Fprintf(w, "\nUpstream commits between the pins that touch patched files:\n\n")
		for _, c := range p.Upstream.Commits {
			fmt.Fprintf(w, "- `%s` %s\n", gitformat.Short(c.Hash), outfmt.Cell(c.Subject))
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}
