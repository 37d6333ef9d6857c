package main

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/capi"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/spf13/cobra"
)

func newRebaseCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var onto, ontoCommit, as, dir, modVersion, modHash string
	var cont, skip, abort, execAtEnd, withCAPI, keep, noVerify bool
	var capiSrc string
	var execCmd string
	cmd := &cobra.Command{
		Use:   "rebase --version V --onto REF [--as NEW] | --continue | --skip | --abort",
		Short: "Replay a version's series onto another upstream pin, patch by patch",
		Long: `rebase materializes the new upstream pin in --dir and replays the series one patch at
a time, classifying each: applied, applied at an offset, already upstream (its
reverse applies: dropped), or merged three-way as git am -3 does (base = the
file the patch was made against: the old pin with the earlier patches; a clean merge
is committed, "applied by three-way merge"). Where both sides changed the same lines
it stops, leaving --dir for you to fix: those lines are between diff3 conflict markers
(upstream's, the base's, the patch's), cleanly merged and new files are staged, and
what cannot be merged (no base, a binary, a rename or mode change, a file upstream
deleted) is in FILE.rej. Edit the files so they hold the patch's change, then
--continue (your edits become the patch, with its author and message; it refuses
while markers or .rej files are left, or when nothing changed; deleting a .rej file
drops that change, deleting a file records its deletion), --skip to drop the patch,
or --abort to throw the rebase away. The new series is written only when the rebase finishes:
into --as NEW (a standalone version, keeping the recipe's description, capi and
generated list), or over V; rebase prints where. A finished rebase removes its
default work tree (under the cache) unless --keep; a --dir is yours and stays.

--exec CMD runs CMD with /bin/sh in the work tree after each patch is applied and
committed (with --exec-at-end, once, after the last patch), as ` + "`git rebase --exec`" + `
does; its output goes to stderr. Its environment has EPP_BUILD_RECIPE, the folder of
the recipe being rebased, and EPP_BUILD_PATCHES (unless set), the versions' folder. The first failure stops the rebase (exit 6) with the
patch committed: fix the tree (edits to tracked files and new files are folded into
that patch's commit; files the command left, such as a binary, are listed in the work
tree's .git/info/exclude and never recorded), then --continue runs CMD again and goes
on; --skip drops that patch; --abort throws the rebase away. With --capi (the recipe's
C API pin) or --capi-src DIR, the C API library is staged into the work tree before
each run, as ` + "`apply --capi`" + ` does (once the series has added the cgo binding), so
--exec 'go build ./cmd/epp' links.

When every patch is through, before the series is written, rebase type-checks the
tree: every Go package the series changes and every package importing one, with
their tests, compiled as a build compiles them but not linked, so the C API
library is not needed (the binding's own header is; cgo needs a C compiler). The
go command fetches the modules the tree requires with your Go settings (GOPROXY,
GONOSUMDB, GOFLAGS, netrc). A tree that does not compile stops the rebase (exit 6)
naming the first error's file and line: fix it in the work tree (edits are folded
into the last patch's commit, or commit a fix yourself) and --continue, which
type-checks again. --no-verify skips the check; the summary then says so.

--continue, --skip and --abort find the stopped rebase without --dir: in the default
work tree for --patches, or in the --dir it was started with (a start records it
beside the default work tree); they say which. ` + "`epp-build status`" + ` shows where it
stands and what to run next.

--onto takes a tag, a commit or a module pseudo-version (as a go.mod names the
upstream): the commit comes from the repository (or, for a pseudo-version, from the
module proxy). For a recipe with upstream.module, the module version is worked out
from the commit as the go command does (its semver tag, else a pseudo-version of its
committer time, revision and the highest tag in its history, read from the
repository or --upstream without the module proxy), and the h1: hash is computed
from the fetched tree. --onto-commit, --onto-module-version and --onto-module-hash
override them; a module version given (or the proxy's, for a pseudo-version --onto)
that is not the commit's stops the rebase, exit 5, naming the commit's.

--as NEW writes derived: {from: V, onto: PIN} in place of V's reproduces block, and
a first header line saying so.`,
		Example: `  epp-build rebase --version v1.4.2 --onto v1.5.0 --as v1.5.0-dyn --dir ./rebase
  epp-build rebase --continue --dir ./rebase
  epp-build rebase --abort --dir ./rebase
  epp-build rebase --version v1.4.2 --onto 1748e829 --as v1.4.9 --exec 'go build ./cmd/epp' --capi-src ../dynamo
  epp-build rebase --version v1.4.2 --onto v1.5.0 --as v1.5.0-dyn --exec 'go vet ./pkg/...' --exec-at-end
  epp-build rebase --version v1.4.2 --onto 206d40dca75d387ed646c9b3cdb9e873c2197e38 --as v1.2.9
  epp-build rebase --version v1.4.2 --onto v0.0.0-20260416154104-206d40dca75d --as v1.2.9`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := cmd.ErrOrStderr()
			res, err := backport.Rebase(cmd.Context(), backport.RebaseRequest{
				Root: g.patches, Dir: dir, Continue: cont, Skip: skip, Abort: abort, As: as,
				Exec: backport.Exec{Command: execCmd, AtEnd: execAtEnd, CAPI: withCAPI || capiSrc != "", CAPISrc: capiSrc, Stage: capiStager(&f)},
				Onto: backport.Onto{Ref: onto, Commit: ontoCommit, ModuleVersion: modVersion, ModuleHash: modHash, Repository: f.upstream, Versions: moduleVersions(&f)},
				Load: func() (*recipe.Recipe, error) { return f.load(g) }, Materialize: materializer(&f, log), Files: pinFiles(&f, log), Log: log,
				Ancestry: ancestry(&f), Keep: keep,
				Verify: apply.TypeCheck, NoVerify: noVerify, Distance: distance(&f),
			})
			backport.WriteRebased(cmd.OutOrStdout(), res)
			return err
		},
	}
	f.register(cmd)
	f.registerProgress(cmd)
	cmd.Flags().StringVar(&onto, "onto", "", "upstream tag, commit or module pseudo-version to rebase onto")
	cmd.Flags().StringVar(&ontoCommit, "onto-commit", "", "the commit --onto must resolve to (default: ask the repository)")
	cmd.Flags().StringVar(&modVersion, "onto-module-version", "", "module version of the new pin (default: what the module proxy answers for --onto)")
	cmd.Flags().StringVar(&modHash, "onto-module-hash", "", "h1: hash of that module version, checked against the fetched tree (default: computed from it)")
	cmd.Flags().StringVar(&as, "as", "", "write the rebased series as this new version instead of over --version")
	cmd.Flags().StringVar(&dir, "dir", "", "work tree of the rebase, created by the start and kept at a conflict (default: a folder per --patches under the user cache folder)")
	cmd.Flags().BoolVar(&cont, "continue", false, "go on after fixing a conflict (or the tree an --exec command failed in)")
	cmd.Flags().BoolVar(&skip, "skip", false, "drop the patch the rebase stopped at")
	cmd.Flags().BoolVar(&abort, "abort", false, "throw the rebase in --dir away")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "do not type-check the rebased tree before the series is written")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the default work tree when the rebase finishes (a --dir is always kept)")
	cmd.Flags().StringVar(&execCmd, "exec", "", "shell command to run in the work tree after each patch; its failure stops the rebase")
	cmd.Flags().BoolVar(&execAtEnd, "exec-at-end", false, "run the --exec command once, after the last patch, instead of after each")
	cmd.Flags().BoolVar(&withCAPI, "capi", false, "before each --exec run, stage the recipe's C API library where the tree's binding links it (as apply --capi)")
	cmd.Flags().StringVar(&capiSrc, "capi-src", "", "as --capi, built from this C API checkout or crate instead of the recipe's pin")
	cmd.MarkFlagsMutuallyExclusive("continue", "skip", "abort")
	return cmd
}

// materializer wires the source stage for rebase.
func materializer(f *recipeFlags, log io.Writer) backport.Materializer {
	return func(ctx context.Context, u recipe.Upstream, dst string) (recipe.Upstream, error) {
		opt, err := f.options(log, false)
		if err != nil {
			return u, err
		}
		return opt.CheckoutPin(ctx, u, dst)
	}
}

// pinFiles wires the source stage's read of a cached pin's files, for
// the bases of rebase's merges.
func pinFiles(f *recipeFlags, log io.Writer) backport.PinFiles {
	return func(ctx context.Context, u recipe.Upstream, paths []string) (map[string][]byte, error) {
		opt, err := f.options(log, false)
		if err != nil {
			return nil, err
		}
		return opt.ReadFiles(ctx, u, paths)
	}
}

// capiStager stages the C API into a rebase's work tree for --exec, as
// apply --capi does.
func capiStager(f *recipeFlags) backport.StageCAPI {
	return func(ctx context.Context, recipeDir, tree, src string, log io.Writer) (string, error) {
		r, err := recipe.Load(recipeDir)
		if err != nil {
			return "", err
		}
		staged, err := apply.StageCAPI(ctx, r, tree, apply.CAPIOptions{Src: src, CacheDir: f.cacheDir, Log: log, Notice: f.notice(log)})
		var none *capi.NoBindingError
		if errors.As(err, &none) {
			return "capi: the tree has no " + none.Header + " yet; nothing staged", nil
		}
		if err != nil {
			return "", err
		}
		var b strings.Builder
		apply.WriteStaged(&b, staged)
		return strings.TrimSuffix(b.String(), "\n"), nil
	}
}
