package apply

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/regen"
)

// Regenerate applies r's series with the generated folders refreshed from
// their source, in a temporary folder, and exports it.
func Regenerate(ctx context.Context, r *recipe.Recipe, opt Options) ([]export.Patch, error) {
	overlays, err := regen.Overlays(r)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "epp-build-regen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	opt.Overlays, opt.PatchLines = overlays, false
	res, err := Recipe(ctx, r, filepath.Join(tmp, "tree"), opt)
	if err != nil {
		return nil, err
	}
	return export.Series(res.Dir)
}

// RegenRecipe rewrites r's patch files with the generated folders
// refreshed from their source, and says on stdout which changed.
func RegenRecipe(ctx context.Context, r *recipe.Recipe, opt Options, stdout io.Writer) error {
	patches, err := Regenerate(ctx, r, opt)
	if err != nil {
		return err
	}
	stale := export.Compare(r, patches)
	if err := export.WriteRecipe(r, patches); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d patches, %d rewritten\n", r.Version, len(patches), len(stale))
	for _, s := range stale {
		fmt.Fprintf(stdout, "  %s\n", s.Patch)
	}
	return nil
}
