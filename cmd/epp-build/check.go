package main

import (
	"github.com/epp-build/epp-build/internal/apply"
	"github.com/spf13/cobra"
)

func newCheckCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var compile bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Fail when the committed patches differ from what apply + export produce (a CI gate)",
		Long: `check applies the version in a temporary folder, exports it again and compares the
result with the committed patch files byte for byte. Folders a patch adds from
plugins/ or ffi/ (the recipe's generated list) are refreshed from that source first,
so a change there that was not regenerated is caught too. It exits 6 and lists every
stale patch; fix with ` + "`epp-build regen`" + ` (or apply, edit, export --to the recipe folder).

--compile then type-checks the applied tree as a finished rebase does: every Go
package the series changes and every package importing one, with their tests,
compiled but not linked (no C API library needed; cgo needs a C compiler), the
modules fetched by the go command with your Go settings (GOPROXY, GONOSUMDB,
GOFLAGS). A tree that does not compile exits 6 naming the first error's file and
line.`,
		Example: `  epp-build check --version v0.7.0
  epp-build check --recipe ./my-series --source goproxy
  epp-build check --version v1.4.2 --compile`,
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
			res, err := apply.Gate(cmd.Context(), r, opt, compile)
			apply.WriteChecked(cmd.OutOrStdout(), res)
			return err
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	cmd.Flags().BoolVar(&compile, "compile", false, "also type-check the packages the series changes and their dependents (exit 6 with the first error's file and line)")
	return cmd
}
