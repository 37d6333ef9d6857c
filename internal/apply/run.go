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
	var s *patchset.Series
	if regen {
		g, err := Regen(ctx, r, opt)
		if err != nil {
			return res, err
		}
		res.Regenerated = g
		if res.Recipe, s, err = regenerated(r, g); err != nil {
			return res, err
		}
	} else {
		var err error
		if s, err = patchset.LoadSeries(r); err != nil {
			return res, err
		}
	}
	o, err := Series(ctx, res.Recipe, s, out, opt)
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

// regenerated is r with the series g wrote, as loading the recipe again
// would give it, taken from memory: the apply after a regen uses what
// the regen made, not what a reader of the folder finds there.
func regenerated(r *recipe.Recipe, g *Regenerated) (*recipe.Recipe, *patchset.Series, error) {
	var all []*patchset.Patch
	names := make([]string, 0, len(g.Patches))
	for _, p := range g.Patches {
		ps, err := patchset.Parse(p.Name, p.Data)
		if err != nil {
			return nil, nil, fmt.Errorf("patch %s: %w", p.Name, err)
		}
		all = append(all, ps...)
		names = append(names, p.Name)
	}
	s, err := patchset.NewSeries(all)
	if err != nil {
		return nil, nil, err
	}
	if n := r.Inherited(); n <= len(names) {
		names = names[n:]
	}
	return r.WithPatches(names), s, nil
}
