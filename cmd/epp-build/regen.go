package main

import (
	"github.com/epp-build/epp-build/internal/apply"
	"github.com/spf13/cobra"
)

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
	return cmd
}
