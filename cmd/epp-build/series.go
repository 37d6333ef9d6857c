package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/review"
)

func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// render prints v as -o/--output asks: JSON here, Markdown or text by the
// stage's render functions.
func render(cmd *cobra.Command, f outfmt.Format, v any, markdown, text func(io.Writer) error) error {
	switch f {
	case outfmt.JSON:
		return printJSON(cmd, v)
	case outfmt.Markdown:
		return markdown(cmd.OutOrStdout())
	}
	return text(cmd.OutOrStdout())
}

// outputFlag registers -o/--output: text (alias table), json or markdown.
func outputFlag(cmd *cobra.Command, f *outfmt.Format) {
	*f = outfmt.Text
	cmd.Flags().VarP(f, "output", "o", "output format: text (or table), json, or markdown (a table for a pull request)")
}

// verboseFlag registers -v/--verbose: each notice's whole text under its
// line on stderr.
func verboseFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVarP(v, "verbose", "v", false, "print each notice's whole text, not one line (stderr)")
}

// notices says on stderr what the reader should know that is not the
// result, in every output mode: stdout is only the document.
func notices(cmd *cobra.Command, verbose bool, ns []outfmt.Notice) error {
	return outfmt.WriteNotices(cmd.ErrOrStderr(), verbose, ns)
}

func newLogCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var output outfmt.Format
	var since string
	var noHistory, verbose bool
	cmd := &cobra.Command{
		Use:   "log --version V [--since EARLIER]",
		Short: "List a version's patches, or what changed in a line since an earlier version",
		Long: `log lists a version's patches: subject, author, upstream link, reason and files.

With --since EARLIER it lists what changed between two versions of a line, for a
release pull request: the GAIE upstream and C API pins of both (and, when the upstream
moved, the upstream commits between them that touch files the series patch, read
from a partial clone of the upstream kept in the cache, fetched from --upstream or
$EPP_BUILD_UPSTREAM when set; --no-history skips that), the known vulnerabilities
the newer version fixes (every "Fixes: GO-YYYY-NNNN" trailer of its patches that no
patch of the earlier version has, and the move of the recipe's Go toolchain, such as
"Go go1.26.8 → go1.26.10"), and every patch added, dropped or changed (patches that
only moved with the upstream are counted, not listed).`,
		Example: `  epp-build log --version v1.4.2
  epp-build log --version v1.4.2 -o markdown   # paste into a pull request
  epp-build log --version v1.4.2 -o json
  epp-build log --version v1.4.3 --since v1.4.2 -o markdown   # release notes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if since != "" && f.version == "" {
				return usageError{fmt.Errorf("--since needs --version: the two versions of the line to compare")}
			}
			req := review.LogRequest{Root: g.patches, Version: f.version, Since: since, Load: func() (*recipe.Recipe, error) { return f.load(g) }}
			if since != "" && !noHistory {
				req.History = upstreamHistory(f.cacheDir, f.upstream)
			}
			doc, err := review.RunLog(cmd.Context(), req)
			if err != nil {
				return err
			}
			if err := notices(cmd, verbose, doc.Notices); err != nil {
				return err
			}
			return render(cmd, output, doc.Value, doc.Markdown, doc.Text)
		},
	}
	f.register(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&since, "since", "", "list what changed since this earlier `VERSION` of the line (release notes)")
	cmd.Flags().BoolVar(&noHistory, "no-history", false, "with --since: do not read the upstream commits between the pins")
	verboseFlag(cmd, &verbose)
	return cmd
}

// seriesDiffer is diff-series --exit-code's finding (exit 1).
var seriesDiffer = errors.New("the series differ")

func newDiffSeriesCommand(g *globalFlags) *cobra.Command {
	var output outfmt.Format
	var exitCode, noHistory, verbose bool
	var cacheDir, upstream string
	cmd := &cobra.Command{
		Use:   "diff-series A B",
		Short: "Compare two versions' series patch by patch: same, moved, changed (with interdiff), added, dropped",
		Long: `diff-series matches the patches of two versions by subject and says, for each, whether
it is the same, moved (the same change at other upstream lines: "moved (+56)"),
changed (with an interdiff), added or dropped, with its Upstream: and Reason:.
With --exit-code it exits 1 when a patch was added, dropped or changed (moved
patches are the same change), for CI.

Above the table it shows both versions' GAIE upstream and C API pins and, when the
upstream moved, the upstream commits between them that touch a file either series
patches (read from a partial clone of the upstream, without file contents, kept
in the cache and fetched from --upstream or $EPP_BUILD_UPSTREAM when set, else from
the recipe's repository; --no-history skips it, and a history that cannot be read is a
one-line notice on stderr, -v for the whole of it). -o json prints the pins, the
history note and the patches.`,
		Example: `  epp-build diff-series v1.4.2 v1.4.3
  epp-build diff-series v1.4.2 v1.5.0-dyn -o markdown   # paste into a pull request
  epp-build diff-series v1.4.2 v1.4.3 --exit-code
  epp-build diff-series v1.4.2 v1.4.3 --upstream ../gaie   # the history from a local clone`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var history review.History
			if !noHistory {
				history = upstreamHistory(cacheDir, upstream)
			}
			d, err := review.CompareVersions(cmd.Context(), g.patches, args[0], args[1], history)
			if err != nil {
				return err
			}
			if err := notices(cmd, verbose, d.Pins.Notices()); err != nil {
				return err
			}
			err = render(cmd, output, d, func(w io.Writer) error { return review.WriteSeriesDiffMarkdown(w, d) },
				func(w io.Writer) error { return review.WriteSeriesDiff(w, d) })
			if err == nil && exitCode && review.Differ(d.Patches) {
				return seriesDiffer
			}
			return err
		},
	}
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 1 when a patch was added, dropped or changed")
	cmd.Flags().BoolVar(&noHistory, "no-history", false, "do not read the upstream commits between the two pins")
	cmd.Flags().StringVar(&cacheDir, "cache-dir", "", "where the upstream history is kept (default: the user cache folder + /epp-build)")
	cmd.Flags().StringVar(&upstream, "upstream", "", "git URL or local clone or mirror to read the upstream history from instead of the recipe's repository (default: $"+upstreamEnv+")")
	verboseFlag(cmd, &verbose)
	return cmd
}

func newLintCommand(g *globalFlags) *cobra.Command {
	var (
		output    outfmt.Format
		cacheDir  string
		upstream  string
		versions  []string
		verbose   bool
		eachPatch bool
	)
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check every recipe: pins, patch metadata, overlapping hunks, list and files",
		Long: `lint loads every recipe under --patches and reports: malformed pins; list and files
that disagree; patches without a body saying why or without an Upstream: or Reason:
trailer; and a patch that changes lines an earlier patch changes without an Order:
trailer saying why the order matters; a description that names another upstream pin
than the recipe's (left over from a copy or a rebase); and an upstream.moduleHash that is not the hash
of the module zip of its pinned tree, for the trees in the cache (lint does not
fetch; apply, check and rebase check the hash of every tree they fetch), or an
upstream.moduleVersion that is not the one the go command gives the pinned commit,
for the commits whose history and tags the cache holds (check and rebase fetch
them, from --upstream when given: give lint the same; otherwise a notice says it
was not checked). It exits 5 on a module hash or
version mismatch, else 7 when it finds any of these.
It also prints notices on stderr, one line each (-v: the whole text; -o json keeps
them in the list, "notice": true), which do not fail it: a recipe that does not say which
Dynamo release it reproduces, or whose facts were checked only at a Dynamo
commit rather than at the release's own sources (reproduces.checked: commit), one
a rebase --as derived from another version (derived: from, onto), and
a repository on a loopback, private or local address, which nobody else can fetch
(a mirror is given with --upstream, never written into a recipe).

--each-patch also applies each version in a temporary folder (its upstream from the
cache, or fetched as check fetches it) and checks, after every patch, that each Go
import of the upstream module in the files that patch adds or changes names a
package the tree has at that point: a patch importing what only a later patch adds
does not compile on its own (a bisect or a ` + "`rebase --exec 'go vet ./...'`" + ` stops
there). Imports are parsed, not compiled: ` + "`check --compile`" + ` type-checks the end.`,
		Example: `  epp-build lint
  epp-build lint --version v1.4.3
  epp-build lint -o json
  epp-build lint --each-patch --version v1.4.2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			problems, err := review.RunLint(cmd.Context(), review.LintRequest{Root: g.patches, Versions: versions,
				CacheDir: cacheDir, Upstream: upstream, EachPatch: eachPatch, Notice: plainNotice(cmd.ErrOrStderr())})
			if err != nil {
				return err
			}
			if err := notices(cmd, verbose, review.Notices(problems)); err != nil {
				return err
			}
			err = render(cmd, output, problems, func(w io.Writer) error { return review.WriteLintMarkdown(w, problems) },
				func(w io.Writer) error { return review.WriteLint(w, problems) })
			if err != nil {
				return err
			}
			return review.LintFailure(problems)
		},
	}
	outputFlag(cmd, &output)
	cmd.Flags().StringVar(&cacheDir, "cache-dir", "", "cache of fetched upstreams whose module hashes are checked (default: the user cache folder + /epp-build)")
	cmd.Flags().StringVar(&upstream, "upstream", "", "the mirror whose cached history module versions are checked against, as check and rebase were given it (default: $"+upstreamEnv+")")
	cmd.Flags().StringSliceVar(&versions, "version", nil, "lint only this `VERSION` (repeat or comma-separate for several; default: every version)")
	cmd.Flags().BoolVar(&eachPatch, "each-patch", false, "apply each version and check that every patch's Go imports resolve in the tree after that patch (fetches upstreams the cache lacks)")
	verboseFlag(cmd, &verbose)
	return cmd
}
