// Package status is what `epp-build status` reports: the rebase or pick
// stopped in progress and what to do next, whether applied trees are
// current for their recipes (series, HEAD, index and work tree), and which
// recipes are stale against plugins/ and ffi/.
package status

import (
	"fmt"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/recipe"
)

// Report is the whole status.
type Report struct {
	Patches string `json:"patches"`
	// BuiltIn: the recipes are the ones built into the binary, which no
	// rebase, pick or regen works on; only applied trees are looked at.
	BuiltIn bool `json:"builtIn,omitempty"`
	// Rebase is the rebase in progress, nil when there is none.
	Rebase *backport.Status `json:"rebase"`
	// Pick is the pick stopped at a conflict, nil when there is none (a
	// pick keeps a work tree only while it is stopped).
	Pick  *backport.PickStatus `json:"pick"`
	Trees []Tree               `json:"trees"`
	// Stale are the recipes regen would change.
	Stale []apply.GeneratedStale `json:"stale"`
	// Problems are what could not be looked at, and why.
	Problems []string `json:"problems,omitempty"`
}

// Tree is an applied tree's standing and the commands that make it
// current.
type Tree struct {
	apply.OutTree
	Next []string `json:"next"`
}

// Request says where to look.
type Request struct {
	Root string // the folder of the versions (--patches)
	// BuiltIn names the recipes built into the binary when Root is their
	// cached copy: it is shown instead of Root, which is the tool's and
	// not the user's.
	BuiltIn string
	// Dir is a rebase or pick work tree to look at ("" = find the ones
	// in progress for Root).
	Dir string
	// Outs are applied trees to check.
	Outs []string
}

// Gather looks at everything the request names.
func Gather(req Request) (*Report, error) {
	rep := &Report{Patches: req.Root, Trees: []Tree{}, Stale: []apply.GeneratedStale{}}
	if req.BuiltIn != "" {
		rep.Patches, rep.BuiltIn = req.BuiltIn, true
	}
	if !rep.BuiltIn || req.Dir != "" {
		if err := inProgress(req, rep); err != nil {
			return nil, err
		}
	}
	for _, out := range req.Outs {
		t, err := apply.OutStatus(req.Root, out, nil)
		if err != nil {
			rep.Problems = append(rep.Problems, fmt.Sprintf("tree %s: %v", out, err))
			continue
		}
		rep.Trees = append(rep.Trees, Tree{OutTree: *t, Next: treeNext(t)})
	}
	if rep.BuiltIn {
		return rep, nil
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

// inProgress fills in the stopped rebase and the stopped pick: those of
// req.Dir when it is given (a pick started with --dir is found only so),
// else those found for req.Root.
func inProgress(req Request, rep *Report) error {
	var rebase, pick *backport.Found
	var err error
	switch {
	case req.Dir != "" && backport.HasPick(req.Dir):
		pick = &backport.Found{Dir: req.Dir, How: "--dir"}
	case req.Dir != "":
		rebase = &backport.Found{Dir: req.Dir, How: "--dir"}
	default:
		if rebase, err = backport.FindInProgress(req.Root); err != nil {
			return err
		}
		if pick, err = backport.FindPick(req.Root); err != nil {
			return err
		}
	}
	if rebase != nil {
		if rep.Rebase, err = backport.InProgress(rebase); err != nil {
			return err
		}
	}
	if pick != nil {
		if rep.Pick, err = backport.PickInProgress(pick); err != nil {
			return err
		}
	}
	return nil
}
