package main

import (
	"encoding/json"
	"fmt"

	"github.com/epp-build/epp-build/internal/buildinfo"
	"github.com/spf13/cobra"
)

func newVersionCommand() *cobra.Command {
	var output string
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
			case "text", "table":
				_, err := fmt.Fprintln(cmd.OutOrStdout(), info)
				return err
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			return usageError{fmt.Errorf("--output %q: use text or json", output)}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

// setVersionFlag makes `epp-build --version` print the same line as
// `epp-build version`.
func setVersionFlag(root *cobra.Command) {
	info := buildinfo.Read()
	root.Version = info.Version
	root.SetVersionTemplate(info.String() + "\n")
}
