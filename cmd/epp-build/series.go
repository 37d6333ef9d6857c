package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/review"
	"github.com/epp-build/epp-build/internal/textsafe"
	"github.com/spf13/cobra"
)

func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func newLogCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var output string
	cmd := &cobra.Command{
		Use:   "log --version V",
		Short: "List a version's patches: subject, author, upstream link, reason, files",
		Example: `  epp-build log --version v1.4.2
  epp-build log --version v1.4.2 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := f.load(g)
			if err != nil {
				return err
			}
			entries, err := review.Log(r)
			if err != nil {
				return err
			}
			if output == "json" {
				return printJSON(cmd, entries)
			}
			w := cmd.OutOrStdout()
			esc := textsafe.Escape // patch metadata never drives the terminal
			for _, e := range entries {
				fmt.Fprintf(w, "%d. %s  [%s]\n", e.Index, esc(e.Subject), esc(e.File))
				fmt.Fprintf(w, "   author:   %s, %s\n", esc(e.Author), esc(e.Date))
				if e.Version != r.Version {
					fmt.Fprintf(w, "   from:     %s\n", e.Version)
				}
				fmt.Fprintf(w, "   upstream: %s\n", esc(orNone(e.Upstream)))
				fmt.Fprintf(w, "   reason:   %s\n", esc(orNone(e.Reason)))
				fmt.Fprintf(w, "   files:    %s\n", esc(strings.Join(e.Files, ", ")))
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}

func orNone(v []string) string {
	if len(v) == 0 {
		return "-"
	}
	return strings.Join(v, ", ")
}

func newDiffSeriesCommand(g *globalFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "diff-series A B",
		Short: "Compare two versions' series patch by patch: added, dropped, changed (with interdiff)",
		Example: `  epp-build diff-series v1.4.2 v1.4.3
  epp-build diff-series v1.4.2 v1.5.0-dyn -o json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var sides [2][]review.Entry
			for i, v := range args {
				r, err := recipe.LoadVersion(g.patches, v)
				if err != nil {
					return err
				}
				if sides[i], err = review.Log(r); err != nil {
					return err
				}
			}
			changes := review.DiffSeries(sides[0], sides[1])
			if output == "json" {
				return printJSON(cmd, changes)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "CHANGE\tPATCH\t%s\t%s\n", strings.ToUpper(args[0]), strings.ToUpper(args[1]))
			for _, c := range changes {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Kind, textsafe.Escape(c.Subject), textsafe.Escape(dash(c.Old)), textsafe.Escape(dash(c.New)))
			}
			tw.Flush()
			for _, c := range changes {
				if c.Interdiff != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "\ninterdiff of %q:\n%s", c.Subject, textsafe.EscapeLines(c.Interdiff))
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newLintCommand(g *globalFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check every recipe: pins, patch metadata, overlapping hunks, list and files",
		Long: `lint loads every recipe under --patches and reports: malformed pins; list and files
that disagree; patches without a body saying why or without an Upstream: or Reason:
trailer; and a patch that changes lines an earlier patch changes without an Order:
trailer saying why the order matters. It exits 7 when it finds anything.`,
		Example: `  epp-build lint
  epp-build lint -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			problems, err := review.Lint(g.patches)
			if err != nil {
				return usageError{err}
			}
			if output == "json" {
				if err := printJSON(cmd, problems); err != nil {
					return err
				}
			} else {
				for _, p := range problems {
					fmt.Fprintln(cmd.OutOrStdout(), p.String())
				}
			}
			if len(problems) > 0 {
				return lintError{len(problems)}
			}
			if output != "json" {
				fmt.Fprintln(cmd.OutOrStdout(), "no problems")
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}

// lintError is lint's finding.
type lintError struct{ n int }

func (e lintError) Error() string { return fmt.Sprintf("lint found %d problem(s)", e.n) }
