package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/regen"
	"github.com/spf13/cobra"
)

// regenerate applies the series with the generated folders refreshed
// from their source, in a temporary folder, and exports it.
func regenerate(ctx context.Context, f *recipeFlags, r *recipe.Recipe, log io.Writer) ([]export.Patch, error) {
	overlays, err := regen.Overlays(r)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "epp-build-regen-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res, err := applyRecipe(ctx, f, r, filepath.Join(tmp, "tree"), log, true, overlays)
	if err != nil {
		return nil, err
	}
	return export.Series(res.Dir)
}

// regenRecipe rewrites the recipe's patch files with the generated folders
// refreshed from their source, and says which changed.
func regenRecipe(ctx context.Context, f *recipeFlags, r *recipe.Recipe, stdout, log io.Writer) error {
	patches, err := regenerate(ctx, f, r, log)
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

func newRegenCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	cmd := &cobra.Command{
		Use:   "regen",
		Short: "Regenerate the patches that add plugins/ and ffi/ source to the upstream tree",
		Long: `regen applies the version's series in a temporary folder, replaces each folder that
the recipe's generated list maps from this repository (plugins/, ffi/) with that
source, import paths rewritten to the upstream module, and writes the exported series
back into the recipe folder. Run it after changing plugin or binding code; ` + "`check`" + `
fails until you do.`,
		Example: `  epp-build regen --version v0.7.0`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.load(g)
			if err != nil {
				return err
			}
			return regenRecipe(cmd.Context(), &f, r, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	return cmd
}
