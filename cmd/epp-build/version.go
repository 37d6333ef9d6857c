package main

import (
	"fmt"

	"github.com/epp-build/epp-build/internal/outfmt"

	"github.com/epp-build/epp-build/internal/buildinfo"
	"github.com/spf13/cobra"
)

func newVersionCommand() *cobra.Command {
	var output outfmt.Format
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print epp-build's version, the Go that built it and its VCS revision",
		Example: `  epp-build version
  epp-build --version
  epp-build version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := buildinfo.Read()
			switch output {
			case outfmt.JSON:
				return printJSON(cmd, info)
			case outfmt.Markdown:
				return usageError{fmt.Errorf("--output markdown: version prints text or json")}
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), info)
			return err
		},
	}
	outputFlag(cmd, &output)
	return cmd
}

// setVersionFlag makes `epp-build --version` print the same line as
// `epp-build version`.
func setVersionFlag(root *cobra.Command) {
	info := buildinfo.Read()
	root.Version = info.Version
	root.SetVersionTemplate(info.String() + "\n")
}
