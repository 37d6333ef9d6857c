package main

import (
	"github.com/epp-build/epp-build/internal/apply"
	"github.com/spf13/cobra"
)

func newCheckCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Fail when the committed patches differ from what apply + export produce (a CI gate)",
		Long: `check applies the version in a temporary folder, exports it again and compares the
result with the committed patch files byte for byte. Folders a patch adds from
plugins/ or ffi/ (the recipe's generated list) are refreshed from that source first,
so a change there that was not regenerated is caught too. It exits 6 and lists every
stale patch; fix with ` + "`epp-build regen`" + ` (or apply, edit, export --to the recipe folder).`,
		Example: `  epp-build check --version v0.7.0
  epp-build check --recipe ./my-series --source goproxy`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.load(g)
			if err != nil {
				return err
			}
			opt, err := f.options(cmd.ErrOrStderr(), false)
			if err != nil {
				return err
			}
			res, err := apply.Check(cmd.Context(), r, opt)
			apply.WriteChecked(cmd.OutOrStdout(), res)
			return err
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	return cmd
}
