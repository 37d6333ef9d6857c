package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/bundled"
	"github.com/epp-build/epp-build/internal/source"
)

// readsRecipesOnly are the commands that read the series and never write
// it: they run from the recipes embedded in the binary when there is no
// patches/ folder. The others (regen, check, pick, rebase, export) edit or
// regenerate a checkout's series from its plugins/ and ffi/ source.
var readsRecipesOnly = map[string]bool{
	"versions": true, "apply": true, "build": true, "log": true, "diff-series": true, "lint": true,
}

// resolvePatches picks the recipes: --patches or EPP_BUILD_PATCHES when
// given; else ./patches when it exists, so that in a checkout the series
// being edited is the one used; else, for a command that only reads
// recipes, the series embedded in this binary, written once under the
// cache folder (not at all when the command is given a recipe folder).
func (g *globalFlags) resolvePatches(cmd *cobra.Command) error {
	if cmd.Flags().Changed("patches") || os.Getenv("EPP_BUILD_PATCHES") != "" {
		return nil
	}
	if fi, err := os.Stat(g.patches); err == nil && fi.IsDir() {
		return nil
	}
	if !readsRecipesOnly[cmd.Name()] || cmd.Parent() == nil || cmd.Parent().Parent() != nil {
		return nil
	}
	if f := cmd.Flags().Lookup("recipe"); f != nil && f.Changed {
		return nil // the recipe is named: no series is read
	}
	cacheDir := ""
	if f := cmd.Flags().Lookup("cache-dir"); f != nil {
		cacheDir = f.Value.String()
	}
	if cacheDir == "" {
		var err error
		if cacheDir, err = source.CacheDir(); err != nil {
			return err
		}
	}
	dir, err := bundled.Extract(cacheDir)
	if err != nil {
		return err
	}
	g.patches, g.bundled = dir, true
	return nil
}
