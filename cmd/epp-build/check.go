package main

import (
	"fmt"
	"strings"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/export"
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
stale patch; fix with ` + "`epp-build regen`" + ` (or apply, edit, export --to the recipe folder).

` + exitCodesHelp,
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
			patches, err := apply.Regenerate(cmd.Context(), r, opt)
			if err != nil {
				return err
			}
			stale := export.Compare(r, patches)
			if len(stale) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %d patches up to date\n", r.Version, len(patches))
				return nil
			}
			var b strings.Builder
			fmt.Fprintf(&b, "%s: %d stale patch(es):", r.Version, len(stale))
			for _, s := range stale {
				b.WriteString("\n  " + s.String())
			}
			b.WriteString("\nfix: epp-build regen --recipe " + r.Dir)
			return staleError{b.String()}
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	return cmd
}
