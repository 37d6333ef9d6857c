package main

import (
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/review"
	"github.com/spf13/cobra"
)

func newVersionsCommand(g *globalFlags) *cobra.Command {
	var output outfmt.Format
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List the release versions under patches/ with their upstream pin",
		Example: `  epp-build versions
  epp-build versions -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, err := review.Versions(g.patches)
			if err != nil {
				return usageError{fmt.Errorf("%w (run from the epp-build checkout or pass --patches)", err)}
			}
			return render(cmd, output, rows, func(w io.Writer) error { return review.WriteVersionsMarkdown(w, rows) },
				func(w io.Writer) error { return review.WriteVersions(w, rows) })
		},
	}
	outputFlag(cmd, &output)
	return cmd
}
