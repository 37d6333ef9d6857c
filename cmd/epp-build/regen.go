package main

import (
	"fmt"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/spf13/cobra"
)

func newRegenCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var all bool
	cmd := &cobra.Command{
		Use:   "regen",
		Short: "Regenerate the patches that add plugins/ and ffi/ source to the upstream tree",
		Long: `regen applies the version's series in a temporary folder, replaces each folder that
the recipe's generated list maps from this repository (plugins/, ffi/) with that
source, import paths rewritten to the upstream module, and writes the exported series
back into the recipe folder. Run it after changing plugin or binding code; ` + "`check`" + `
fails until you do. With --all, every version whose recipe has a generated list (its
own or inherited) is regenerated, bases before the versions that extend them.`,
		Example: `  epp-build regen --version v0.7.0
  epp-build regen --all   # every version whose recipe generates from plugins/ or ffi/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all && (f.version != "" || f.dir != "") {
				return usageError{fmt.Errorf("--all regenerates every version: drop --version and --recipe")}
			}
			if all {
				return regenAll(cmd, g, &f)
			}
			r, err := f.load(g)
			if err != nil {
				return err
			}
			opt, err := f.options(cmd.ErrOrStderr(), false)
			if err != nil {
				return err
			}
			res, err := apply.Regen(cmd.Context(), r, opt)
			apply.WriteRegenerated(cmd.OutOrStdout(), res)
			return err
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "regenerate every version that generates from plugins/ or ffi/")
	return cmd
}

// regenAll regenerates every generating version, stopping at the first
// that fails.
func regenAll(cmd *cobra.Command, g *globalFlags, f *recipeFlags) error {
	if _, err := f.progress.mode(); err != nil {
		return err
	}
	recipes, err := apply.Generating(g.patches)
	if err != nil {
		return err
	}
	opt, err := f.options(cmd.ErrOrStderr(), false)
	if err != nil {
		return err
	}
	for _, r := range recipes {
		res, err := apply.Regen(cmd.Context(), r, opt)
		apply.WriteRegenerated(cmd.OutOrStdout(), res)
		if err != nil {
			return fmt.Errorf("regen %s: %w", r.Version, err)
		}
	}
	return nil
}
