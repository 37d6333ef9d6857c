package apply

import (
	"context"
	"fmt"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
)

// Result is what the apply command did: the regen first, when asked, and
// the apply of the (then rewritten) recipe.
type Result struct {
	Regenerated *Regenerated // nil without Regen
	Recipe      *recipe.Recipe
	Outcome     *patchset.Outcome
	// CAPI is the C API library staged for a local build (nil without
	// Options.CAPI).
	CAPI *StagedCAPI
}

// Run applies r into out; with regen, the generated patches are first
// rewritten from their source and the recipe read again, so a plugin edit
// is one command. On an error after the regen, the result still says what
// the regen rewrote.
func Run(ctx context.Context, r *recipe.Recipe, out string, regen bool, opt Options) (*Result, error) {
	res := &Result{Recipe: r}
	if regen {
		g, err := Regen(ctx, r, opt)
		if err != nil {
			return res, err
		}
		res.Regenerated = g
		if res.Recipe, err = recipe.Load(r.Dir); err != nil { // the rewritten series
			return res, err
		}
	}
	o, err := Recipe(ctx, res.Recipe, out, opt)
	if err != nil {
		return res, err
	}
	res.Outcome = o
	if err := ExcludeBuildOutputs(o.Dir); err != nil {
		return res, fmt.Errorf("list the build outputs in %s/.git/info/exclude: %w", o.Dir, err)
	}
	if opt.CAPI != nil {
		if res.CAPI, err = StageCAPI(ctx, res.Recipe, o.Dir, *opt.CAPI); err != nil {
			return res, err
		}
	}
	return res, nil
}
