package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/bump"
	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/vulns"
)

func newBumpCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var req bump.Request
	var db string
	var output outfmt.Format
	cmd := &cobra.Command{
		Use:   "bump --version V [MODULE@VERSION...] [--fixes GO-YYYY-NNNN...] [--fix-called] [--toolchain goX.Y.Z] [--dry-run]",
		Short: "Raise a line's Go modules or Go toolchain in one patch that names the vulnerabilities it fixes",
		Long: `bump applies the line's series into a temporary folder, as apply does, raises each
MODULE@VERSION there with go get and go mod tidy, and appends the change to the series as one
patch: subject "deps: bump MODULE to VERSION" (every module, on one line), a Reason: trailer
and a Fixes: trailer per vulnerability (--fixes GO-YYYY-NNNN, repeatable or comma-separated),
authored by git's identity (GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, else user.name and
user.email). The go command runs with your settings (GOPROXY, GONOSUMDB, GOFLAGS, GOTOOLCHAIN,
the go env file, netrc), as every fetch does.

The bumped tree is type-checked as rebase checks one: a bump that does not compile is refused
with the first error (exit 6) unless --no-verify. The version folder is replaced whole, so
check and lint pass after it; nothing is written when any step fails. A module the line does
not require, or a version at or below the one it has, is refused (exit 2).

--fix-called scans the line as vulns does (source mode, --db as there) and plans the smallest
set of bumps that removes every called finding: per module, the lowest version that fixes all
of its called findings. The plan is printed before anything is written (--dry-run: only the
plan). Findings the bumps fix become Fixes: trailers. Called findings in the standard library
are fixed by a Go release, which the plan proposes; --toolchain goX.Y.Z records it as the
recipe's toolchain (the Go the line is built with) in the same write, and names the standard
library findings it fixes in the patch.`,
		Example: `  epp-build bump --version v1.4.2 golang.org/x/net@v0.45.0 --fixes GO-2025-3595
  epp-build bump --version v0.7.0 --fix-called --dry-run       # the plan only
  epp-build bump --version v0.7.0 --fix-called --toolchain go1.26.10
  epp-build bump --version v1.4.2 --toolchain go1.27.3
  epp-build bump --version v0.7.0 --fix-called --db file:///srv/vulndb -o json`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := bumpRequest(g, &f, cmd, args, db, output, &req); err != nil {
				return err
			}
			res, err := bump.Run(cmd.Context(), req)
			if err != nil {
				return err
			}
			return render(cmd, output, res, func(w io.Writer) error { return bump.WriteMarkdown(w, res) },
				func(w io.Writer) error { return bump.WriteResult(w, res) })
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	cmd.Flags().StringSliceVar(&req.Fixes, "fixes", nil, "a vulnerability the bump fixes: its Go database `ID`, GO-YYYY-NNNN (repeatable)")
	cmd.Flags().BoolVar(&req.FixCalled, "fix-called", false, "scan the line and bump what removes every called vulnerability")
	cmd.Flags().BoolVar(&req.DryRun, "dry-run", false, "print the plan, write nothing")
	cmd.Flags().BoolVar(&req.NoVerify, "no-verify", false, "write the bump even when the bumped tree does not type-check")
	cmd.Flags().StringVar(&req.Toolchain, "toolchain", "", "record this Go `RELEASE` (goX.Y.Z) as the line's toolchain")
	cmd.Flags().StringVar(&db, "db", vulns.DefaultDB, "vulnerability database of --fix-called: an https URL or file:///DIR in the layout the go tooling serves")
	outputFlag(cmd, &output)
	return cmd
}

// bumpRequest checks the arguments, before anything is fetched, and
// turns the flags into the request.
func bumpRequest(g *globalFlags, f *recipeFlags, cmd *cobra.Command, args []string, db string, output outfmt.Format, req *bump.Request) error {
	var err error
	if req.Modules, err = bump.ParseModules(args); err != nil {
		return err
	}
	if err := bump.CheckRequest(req); err != nil {
		return err
	}
	if cmd.Flags().Changed("db") && !req.FixCalled {
		return usageError{fmt.Errorf("--db is the database --fix-called scans against: add --fix-called or drop --db")}
	}
	if req.DB, err = databaseURL(db); err != nil {
		return usageError{err}
	}
	if req.Recipe, err = f.load(g); err != nil {
		return err
	}
	if req.Apply, err = f.options(cmd.ErrOrStderr(), false); err != nil {
		return err
	}
	req.Progress = f.reporter(cmd.ErrOrStderr())
	if output == outfmt.Text {
		// The plan is shown before the write, so a long write is not a
		// surprise; the other formats are one document at the end.
		req.ShowPlan = func(res *bump.Result) error {
			return bump.WritePlan(cmd.OutOrStdout(), res.Version, res.Plan, res.Proposed)
		}
	}
	return nil
}
