package status

import (
	"fmt"
	"io"
	"strings"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// WriteText prints the report for a reader. Names that come from patches,
// pick state or a tree are escaped: they may hold terminal controls.
func WriteText(w io.Writer, rep *Report) {
	if rep.BuiltIn {
		fmt.Fprintf(w, "recipes: %s (a rebase, a pick and stale recipes concern a checkout or --patches DIR)\n", rep.Patches)
		for _, t := range rep.Trees {
			writeTree(w, t)
		}
		writeProblems(w, rep)
		return
	}
	if rep.Rebase != nil {
		writeRebase(w, rep.Rebase)
	} else {
		fmt.Fprintf(w, "no rebase in progress for %s\n", rep.Patches)
	}
	if rep.Pick != nil {
		writePick(w, rep.Pick)
	} else {
		fmt.Fprintf(w, "no pick stopped for %s (one started with --dir: `epp-build status --dir DIR`)\n", rep.Patches)
	}
	for _, t := range rep.Trees {
		writeTree(w, t)
	}
	if len(rep.Stale) == 0 {
		fmt.Fprintln(w, "recipes: none stale against plugins/ and ffi/")
	}
	for _, g := range rep.Stale {
		fmt.Fprintf(w, "recipe %s: stale against plugins/ and ffi/; fix: epp-build regen --version %s\n", g.Version, g.Version)
		for _, f := range g.Files {
			fmt.Fprintf(w, "  %s\n", textsafe.Escape(f))
		}
		for _, f := range g.Unknown {
			fmt.Fprintf(w, "  %s: edited by its patch, not added; `epp-build check --version %s` tells\n", textsafe.Escape(f), g.Version)
		}
	}
	writeProblems(w, rep)
}

func writeProblems(w io.Writer, rep *Report) {
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "problem: %s\n", textsafe.Escape(p))
	}
}

func writeRebase(w io.Writer, s *backport.Status) {
	target := s.Version
	if s.As != "" {
		target += " as " + s.As
	}
	// Every name here comes from the rebase's state file, which anyone who
	// can write the work tree can edit.
	fmt.Fprintf(w, "rebase of %s onto %s in %s (found in %s): %d of %d patches done\n", textsafe.Escape(target), textsafe.Escape(s.Onto), textsafe.Escape(s.Dir), textsafe.Escape(s.FoundHow), s.Done, s.Total)
	for _, st := range s.Steps {
		fmt.Fprintf(w, "  %s: %s\n", textsafe.Escape(st.Patch), st.Outcome)
	}
	switch s.Reason {
	case "conflict":
		fmt.Fprintf(w, "  stopped at a conflict in %s%s\n", textsafe.Escape(s.StoppedAt), marked(s.Marked))
	case "exec":
		fmt.Fprintf(w, "  stopped: --exec %q failed after %s\n", s.Exec.Command, textsafe.Escape(s.StoppedAt))
	case "compile":
		fmt.Fprintf(w, "  stopped: every patch applied, but the tree does not compile (`epp-build rebase --continue` names the error)\n")
	}
	writeNext(w, "", s.Next)
}

func writePick(w io.Writer, s *backport.PickStatus) {
	fmt.Fprintf(w, "pick into %s in %s (found in %s): %d of %d picks in\n", textsafe.Escape(s.Version), textsafe.Escape(s.Dir), textsafe.Escape(s.FoundHow), s.Done, s.Total)
	if s.StoppedAt != "" {
		fmt.Fprintf(w, "  stopped at a conflict in %s %q%s\n", textsafe.Escape(s.StoppedAt), s.Title, marked(s.Marked))
	}
	writeNext(w, "", s.Next)
}

func marked(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return " (marked: " + escapeAll(files) + ")"
}

func writeNext(w io.Writer, indent string, next []string) {
	fmt.Fprintf(w, "%snext:\n", indent)
	for _, n := range next {
		fmt.Fprintf(w, "%s  %s\n", indent, textsafe.Escape(n))
	}
}

func writeTree(w io.Writer, t Tree) {
	if t.Current {
		fmt.Fprintf(w, "tree %s: current for %s\n", t.Dir, t.Version)
		return
	}
	fmt.Fprintf(w, "tree %s: not current for %s\n", t.Dir, t.Version)
	if t.Interrupted {
		fmt.Fprintln(w, "  a re-apply was interrupted half way: files are part old, part new")
	}
	if len(t.Modified) > 0 {
		fmt.Fprintf(w, "  modified: %s\n", escapeAll(t.Modified))
	}
	if len(t.InTheWay) > 0 {
		fmt.Fprintf(w, "  untracked where the recipe's patches write (a re-apply refuses them): %s\n", escapeAll(t.InTheWay))
	}
	if t.HeadMoved {
		fmt.Fprintf(w, "  HEAD moved: at %s, apply left it at %s\n", gitformat.Short(t.Head), gitformat.Short(t.AppliedHead))
	}
	for _, c := range t.Commits {
		fmt.Fprintf(w, "  commit apply did not make: %s %q\n", gitformat.Short(c.Hash), c.Subject)
	}
	for _, r := range t.Reasons {
		fmt.Fprintf(w, "  %s\n", textsafe.Escape(r))
	}
	writeNext(w, "  ", t.Next)
}

func escapeAll(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = textsafe.Escape(n)
	}
	return strings.Join(out, ", ")
}
