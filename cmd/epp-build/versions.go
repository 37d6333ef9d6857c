package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/textsafe"
	"github.com/spf13/cobra"
)

type versionRow struct {
	Version    string `json:"version"`
	Repository string `json:"repository"`
	Ref        string `json:"ref"`
	Commit     string `json:"commit"`
	Patches    int    `json:"patches"`
	Extends    string `json:"extends,omitempty"`
	Error      string `json:"error,omitempty"`
}

func newVersionsCommand(g *globalFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List the release versions under patches/ with their upstream pin",
		Example: `  epp-build versions
  epp-build versions -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "table" && output != "json" {
				return usageError{fmt.Errorf("--output %q: use table or json", output)}
			}
			names, err := recipe.Versions(g.patches)
			if err != nil {
				return usageError{fmt.Errorf("%w (run from the epp-build checkout or pass --patches)", err)}
			}
			rows := make([]versionRow, 0, len(names))
			for _, v := range names {
				row := versionRow{Version: v}
				r, err := recipe.LoadVersion(g.patches, v)
				if err != nil {
					row.Error = err.Error()
				} else {
					row.Repository, row.Ref, row.Commit, row.Patches, row.Extends = r.Upstream.Repository, r.Upstream.Ref, r.Upstream.Commit, len(r.Series), r.Extends
				}
				rows = append(rows, row)
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "VERSION\tEXTENDS\tUPSTREAM REF\tCOMMIT\tPATCHES\tREPOSITORY")
			for _, r := range rows {
				if r.Error != "" {
					fmt.Fprintf(tw, "%s\t-\t-\t-\t-\tinvalid: %s\n", r.Version, textsafe.Escape(r.Error))
					continue
				}
				extends := r.Extends
				if extends == "" {
					extends = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.Version, extends, short(r.Ref), r.Commit[:12], r.Patches, r.Repository)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	return cmd
}
