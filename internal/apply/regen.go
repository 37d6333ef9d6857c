package apply

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/recipe"
)

// Regenerated is a recipe's series as apply + export produce it with the
// generated folders refreshed from their source, against the committed one.
type Regenerated struct {
	Version string
	Patches []export.Patch
	// Stale are the committed patches that differ from Patches.
	Stale []export.Stale
	// Compiled says what check --compile type-checked ("" when it did not).
	Compiled string
}

// Regenerate applies r's series with the generated folders refreshed from
// their source, in a temporary folder, exports it and compares it with
// the committed series. Nothing in the recipe is written.
func Regenerate(ctx context.Context, r *recipe.Recipe, opt Options) (*Regenerated, error) {
	return regenerate(ctx, r, opt, nil)
}

// regenerate is Regenerate with inTree run on the applied tree (its
// commits are the series) before the tree is removed.
func regenerate(ctx context.Context, r *recipe.Recipe, opt Options, inTree func(g *Regenerated, tree string) error) (*Regenerated, error) {
	ov, err := overlays(r)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "epp-build-regen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	opt.Overlays, opt.PatchLines = ov, false
	res, err := Recipe(ctx, r, filepath.Join(tmp, "tree"), opt)
	if err != nil {
		return nil, err
	}
	patches, err := export.Series(res.Dir)
	if err != nil {
		return nil, err
	}
	g := &Regenerated{Version: r.Version, Patches: patches, Stale: export.Compare(r, patches)}
	if inTree != nil {
		if err := inTree(g, res.Dir); err != nil {
			return g, err
		}
	}
	return g, nil
}

// Regen rewrites r's patch files from Regenerate's series.
func Regen(ctx context.Context, r *recipe.Recipe, opt Options) (*Regenerated, error) {
	g, err := Regenerate(ctx, r, opt)
	if err != nil {
		return nil, err
	}
	if err := export.WriteRecipe(r, g.Patches); err != nil {
		return nil, err
	}
	return g, nil
}

// StaleError is check's finding: the committed series is not what apply +
// export produce.
type StaleError struct {
	Version string
	Dir     string // the recipe folder, for the fix it names
	Stale   []export.Stale
}

func (e *StaleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d stale patch(es):", e.Version, len(e.Stale))
	for _, s := range e.Stale {
		b.WriteString("\n  " + s.String())
	}
	b.WriteString("\nfix: epp-build regen --recipe " + e.Dir)
	return b.String()
}

// Check regenerates r's series and fails with a *StaleError when the
// committed one differs from it.
func Check(ctx context.Context, r *recipe.Recipe, opt Options) (*Regenerated, error) {
	return CheckCompiles(ctx, r, opt, nil)
}

// CheckCompiles is Check that, when the series is up to date, also runs
// compile on the applied tree (check --compile: the packages the series
// changes and their dependents type-checked); it returns what compile says
// it checked, or its error. A nil compile checks nothing more.
func CheckCompiles(ctx context.Context, r *recipe.Recipe, opt Options, compile func(ctx context.Context, tree string) (string, error)) (*Regenerated, error) {
	var inTree func(g *Regenerated, tree string) error
	if compile != nil {
		inTree = func(g *Regenerated, tree string) error {
			if len(g.Stale) > 0 {
				return nil // reported as stale first: the fix is a regen
			}
			said, err := compile(ctx, tree)
			g.Compiled = said
			return err
		}
	}
	g, err := regenerate(ctx, r, opt, inTree)
	if err != nil {
		return g, err
	}
	if len(g.Stale) > 0 {
		return g, &StaleError{Version: r.Version, Dir: r.Dir, Stale: g.Stale}
	}
	return g, nil
}
