package apply

import (
	"context"
	"fmt"
	"io"

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

// Command is one apply command: what to apply where, and what to do
// before and after.
type Command struct {
	Recipe *recipe.Recipe
	Out    string
	// Regen first rewrites the generated patches from their source.
	Regen bool
	// CAPI stages the C API library for a local build; CAPISrc,
	// CAPIFeatures and CAPIOnly imply it.
	CAPI         bool
	CAPISrc      string
	CAPIFeatures []string
	// CAPIOnly stages into Out, any git tree holding the binding, and
	// applies nothing.
	CAPIOnly bool
	// Log takes cargo's output.
	Log     io.Writer
	Options Options
}

// Do runs an apply command. The C API is fetched into the upstream's
// cache folder and reports through its notices.
func Do(ctx context.Context, c Command) (*Result, error) {
	opt := c.Options
	if c.CAPI || c.CAPISrc != "" || c.CAPIOnly || len(c.CAPIFeatures) > 0 {
		opt.CAPI = &CAPIOptions{Src: c.CAPISrc, CacheDir: opt.CacheDir, Features: c.CAPIFeatures, Log: c.Log, Notice: opt.Notice}
	}
	if c.CAPIOnly {
		staged, err := StageCAPI(ctx, c.Recipe, c.Out, *opt.CAPI)
		return &Result{Recipe: c.Recipe, CAPI: staged}, err
	}
	return Run(ctx, c.Recipe, c.Out, c.Regen, opt)
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
