package main

import (
	"fmt"

	"github.com/epp-build/epp-build/internal/export"
	"github.com/spf13/cobra"
)

func newExportCommand(g *globalFlags) *cobra.Command {
	var dir, to string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the commits of an applied tree back out as the patch series",
		Long: `export formats every commit after refs/epp-build/upstream in --dir as a patch file,
byte-stable (git format-patch layout with --zero-commit --keep-subject --no-stat
--no-signature --full-index). With --to it writes them into a recipe folder, removes
patch files that are no longer in the series and rewrites the recipe's patches list;
without --to it prints the series to stdout.`,
		Example: `  epp-build export --dir ./gaie --to patches/v0.7.0
  epp-build export --dir ./gaie > series.mbox`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usageError{fmt.Errorf("--dir is required: a tree made by `epp-build apply`")}
			}
			notice := plainNotice(cmd.ErrOrStderr())
			patches, err := export.Run(cmd.Context(), dir, to, notice)
			if err != nil {
				return err
			}
			return export.WriteRun(cmd.OutOrStdout(), patches, to)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the work tree `DIR` made by epp-build apply")
	cmd.Flags().StringVar(&to, "to", "", "recipe folder to write the series into (default: print to stdout)")
	return cmd
}
