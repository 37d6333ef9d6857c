package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/redact"

	"github.com/epp-build/epp-build/internal/outfmt"
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
	var output outfmt.Format
	cmd := &cobra.Command{
		Use:   "versions",
		Short: "List the release versions under patches/ with their upstream pin",
		Example: `  epp-build versions
  epp-build versions -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
					row.Repository, row.Ref, row.Commit, row.Patches, row.Extends = redact.URL(r.Upstream.Repository), r.Upstream.Ref, r.Upstream.Commit, len(r.Series), r.Extends
				}
				rows = append(rows, row)
			}
			out := cmd.OutOrStdout()
			switch output {
			case outfmt.JSON:
				return printJSON(cmd, rows)
			case outfmt.Markdown:
				return versionsMarkdown(out, rows)
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
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", r.Version, extends, apply.Short(r.Ref), r.Commit[:12], r.Patches, r.Repository)
			}
			return tw.Flush()
		},
	}
	outputFlag(cmd, &output)
	return cmd
}

func versionsMarkdown(w io.Writer, rows []versionRow) error {
	table := [][]string{{"Version", "Extends", "Upstream ref", "Commit", "Patches", "Repository"}}
	for _, r := range rows {
		if r.Error != "" {
			table = append(table, []string{outfmt.Cell(r.Version), "-", "-", "-", "-", "invalid: " + outfmt.Cell(r.Error)})
			continue
		}
		table = append(table, []string{outfmt.Cell(r.Version), outfmt.Cell(r.Extends), outfmt.Cell(r.Ref), outfmt.Cell(r.Commit), fmt.Sprint(r.Patches), outfmt.Cell(r.Repository)})
	}
	return outfmt.Table(w, table)
}
