// Package status is what `epp-build status` reports: the rebase in
// progress and what to do next, whether applied trees are current for
// their recipes, and which recipes are stale against plugins/ and ffi/.
package status

import (
	"fmt"
	"io"
	"strings"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/recipe"
)

// Report is the whole status.
type Report struct {
	Patches string `json:"patches"`
	// Rebase is the rebase in progress, nil when there is none.
	Rebase *backport.Status `json:"rebase"`
	// Pick is always null: a pick runs to its end or fails; it never
	// stops to be continued.
	Pick  *struct{}       `json:"pick"`
	Trees []apply.OutTree `json:"trees"`
	// Stale are the recipes regen would change.
	Stale []apply.GeneratedStale `json:"stale"`
	// Problems are what could not be looked at, and why.
	Problems []string `json:"problems,omitempty"`
}

// Request says where to look.
type Request struct {
	Root string // the folder of the versions (--patches)
	// Dir is a rebase work tree to look at ("" = find the one in
	// progress for Root).
	Dir string
	// Outs are applied trees to check.
	Outs []string
}

// Gather looks at everything the request names.
func Gather(req Request) (*Report, error) {
	rep := &Report{Patches: req.Root, Trees: []apply.OutTree{}, Stale: []apply.GeneratedStale{}}
	found := &backport.Found{Dir: req.Dir, How: "--dir"}
	if req.Dir == "" {
		var err error
		if found, err = backport.FindInProgress(req.Root); err != nil {
			return nil, err
		}
	}
	if found != nil {
		st, err := backport.InProgress(found)
		if err != nil {
			return nil, err
		}
		rep.Rebase = st
	}
	for _, out := range req.Outs {
		t, err := apply.OutStatus(req.Root, out, nil)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("tree %s: %v", out, err))
			continue
		}
		rep.Trees = append(rep.Trees, *t)
	}
	versions, err := recipe.Versions(req.Root)
	if err != nil {
		return nil, err
	}
	for _, v := range versions {
		r, err := recipe.LoadVersion(req.Root, v)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("recipe %s: %v", v, err))
			continue
		}
		g, err := apply.StaleGenerated(r)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("recipe %s: %v", v, err))
			continue
		}
		if g != nil {
			rep.Stale = append(rep.Stale, *g)
		}
	}
	return rep, nil
}

// WriteText prints the report for a reader.
func WriteText(w io.Writer, rep *Report) {
	if s := rep.Rebase; s != nil {
		target := s.Version
		if s.As != "" {
			target += " as " + s.As
		}
		fmt.Fprintf(w, "rebase of %s onto %s in %s (found in %s): %d of %d patches done\n", target, s.Onto, s.Dir, s.FoundHow, s.Done, s.Total)
		for _, st := range s.Steps {
			fmt.Fprintf(w, "  %s: %s\n", st.Patch, st.Outcome)
		}
		switch s.Reason {
		case "conflict":
			fmt.Fprintf(w, "  stopped at a conflict in %s", s.StoppedAt)
			if len(s.Marked) > 0 {
				fmt.Fprintf(w, " (marked: %s)", strings.Join(s.Marked, ", "))
			}
			fmt.Fprintln(w)
		case "exec":
			fmt.Fprintf(w, "  stopped: --exec %q failed after %s\n", s.Exec.Command, s.StoppedAt)
		}
		fmt.Fprintln(w, "next:")
		for _, n := range s.Next {
			fmt.Fprintf(w, "  %s\n", n)
		}
	} else {
		fmt.Fprintf(w, "no rebase in progress for %s; no pick in progress (a pick never stops)\n", rep.Patches)
	}
	for _, t := range rep.Trees {
		if t.Current {
			fmt.Fprintf(w, "tree %s: current for %s\n", t.Dir, t.Version)
			continue
		}
		fmt.Fprintf(w, "tree %s: not current for %s; `epp-build apply --version %s --out %s` would re-apply:\n", t.Dir, t.Version, t.Version, t.Dir)
		for _, r := range t.Reasons {
			fmt.Fprintf(w, "  %s\n", r)
		}
	}
	if len(rep.Stale) == 0 {
		fmt.Fprintln(w, "recipes: none stale against plugins/ and ffi/")
	}
	for _, g := range rep.Stale {
		fmt.Fprintf(w, "recipe %s: stale against plugins/ and ffi/; fix: epp-build regen --version %s\n", g.Version, g.Version)
		for _, f := range g.Files {
			fmt.Fprintf(w, "  %s\n", f)
		}
		for _, f := range g.Unknown {
			fmt.Fprintf(w, "  %s: edited by its patch, not added; `epp-build check --version %s` tells\n", f, g.Version)
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
}
