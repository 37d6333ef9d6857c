package main

import (
	"fmt"
	"io"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/spf13/cobra"
)

// recipeFlags choose a recipe and where its upstream comes from; apply,
// check and build share them.
type recipeFlags struct {
	version  string
	dir      string
	upstream string
	source   string
	cacheDir string
	// force is apply's --force: replace an --out holding changes apply
	// did not make, keeping the old tree as a backup.
	force bool
	// progress is --progress and -q.
	progress progressFlags
	shown    *progress.Reporter
	// versions is build's repeatable --version; load takes version, so
	// the build command sets it to each in turn.
	versions []string
}

// registerProgress adds --progress and -q to a command that fetches.
func (f *recipeFlags) registerProgress(cmd *cobra.Command) {
	f.progress.register(cmd, "progress of the fetch and the patches")
}

// reporter shows progress on log as --progress asks; one per command, so
// that lines and the live line never overwrite each other.
func (f *recipeFlags) reporter(log io.Writer) *progress.Reporter {
	if f.shown == nil {
		mode, _ := f.progress.mode() // checked by load
		f.shown = progress.New(log, mode)
	}
	return f.shown
}

func (f *recipeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.version, "version", "", "the release to use: a `VERSION` folder under --patches (list them with: epp-build versions)")
	f.registerSource(cmd)
}

// registerVersions is register with --version repeatable (build).
func (f *recipeFlags) registerVersions(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.versions, "version", nil, "the release to build: a `VERSION` folder under --patches (repeatable: several release lines in one command)")
	f.registerSource(cmd)
}

func (f *recipeFlags) registerSource(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "recipe", "", "a recipe folder to use instead of --version (try a local series)")
	cmd.Flags().StringVar(&f.upstream, "upstream", "", "git URL or local clone or mirror to fetch the upstream and its history from instead of the recipe's repository (default: $"+upstreamEnv+")")
	cmd.Flags().StringVar(&f.source, "source", "auto", "where the upstream comes from: auto (git, then the Go module proxy), git, goproxy or path")
	cmd.Flags().StringVar(&f.cacheDir, "cache-dir", "", "cache for fetched upstreams (default: the user cache folder + /epp-build)")
}

func (f *recipeFlags) load(g *globalFlags) (*recipe.Recipe, error) {
	// Checked here, before any work, even when nothing will be fetched.
	if _, err := source.ParseKind(f.source); err != nil {
		return nil, usageError{err}
	}
	if _, err := f.progress.mode(); err != nil {
		return nil, err
	}
	switch {
	case f.version != "" && f.dir != "":
		return nil, usageError{fmt.Errorf("--version and --recipe both given: choose one")}
	case f.dir != "":
		return recipe.Load(f.dir)
	case f.version != "":
		return recipe.LoadVersion(g.patches, f.version)
	}
	return nil, usageError{fmt.Errorf("--version or --recipe is required")}
}

// options turn the flags into the apply stage's options; patchLines adds
// a progress line per patch.
func (f *recipeFlags) options(log io.Writer, patchLines bool) (apply.Options, error) {
	kind, err := source.ParseKind(f.source)
	if err != nil {
		return apply.Options{}, usageError{err}
	}
	return apply.Options{
		Fetcher: apply.Fetcher{Kind: kind, Upstream: f.upstream, CacheDir: f.cacheDir,
			Progress: f.reporter(log), Notice: f.notice(log)},
		Force: f.force, PatchLines: patchLines,
	}, nil
}

// notice prints a source notice (a fallback, a dropped cache entry) above
// any live progress line; it shows with --progress quiet too.
func (f *recipeFlags) notice(log io.Writer) func(format string, args ...any) {
	shown := f.reporter(log)
	return func(format string, args ...any) {
		if shown == nil {
			plainNotice(log)(format, args...)
			return
		}
		shown.Linef("notice: "+format, args...)
	}
}

// plainNotice prints a notice on log, for a command without a progress
// line to print it above.
func plainNotice(log io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) { fmt.Fprintf(log, "notice: "+format+"\n", args...) }
}

// applyCommand turns apply's flags into the apply stage's command,
// refusing flags that contradict each other before any work.
func applyCommand(g *globalFlags, f *recipeFlags, cmd *cobra.Command, out string, regen, withCAPI bool, capiSrc string, capiFeatures []string, capiOnly bool) (apply.Command, error) {
	if out == "" {
		return apply.Command{}, usageError{fmt.Errorf("--out is required: the folder to leave the patched tree in")}
	}
	r, err := f.load(g)
	if err != nil {
		return apply.Command{}, err
	}
	opt, err := f.options(cmd.ErrOrStderr(), true)
	if err != nil {
		return apply.Command{}, err
	}
	if err := capi.CheckFeatures(capiFeatures); err != nil {
		return apply.Command{}, usageError{err}
	}
	if capiOnly && (regen || f.force) {
		return apply.Command{}, usageError{fmt.Errorf("--capi-only stages the C API library and applies nothing: drop --regen and --force")}
	}
	return apply.Command{Recipe: r, Out: out, Regen: regen, CAPI: withCAPI, CAPISrc: capiSrc, CAPIFeatures: capiFeatures,
		CAPIOnly: capiOnly, Log: cmd.ErrOrStderr(), Options: opt}, nil
}

func newApplyCommand(g *globalFlags) *cobra.Command {
	var f recipeFlags
	var out string
	var regenFirst, withCAPI, capiOnly bool
	var capiSrc string
	var capiFeatures []string
	cmd := &cobra.Command{
		Use:   "apply",
		Short: "Fetch the pinned upstream and apply the version's patch series, one commit per patch",
		Long: `apply fetches the upstream tree the recipe pins, verifies the commit, applies the
patch series strictly (exact context; a hunk may move, which is reported; never fuzz)
and leaves a git work tree in --out with one commit per patch. The upstream base is
the ref refs/epp-build/upstream. The work happens beside --out and replaces it only
when the whole series applied. Running apply again on its own output says whether it
is already applied, or why it re-applies.

Re-applying onto a clean tree of the same upstream and version (the edit loop: change a
patch, apply again) updates it in place: the new series is computed in memory, then
only the files whose content or mode changes are rewritten, with the new commits and
refs. A run stopped while writing leaves a journal in .git that the next apply
completes first. With --regen the generated patches are first rewritten from
plugins/ and ffi/, as ` + "`epp-build regen`" + ` does, so a plugin edit is one command.

apply never discards a change it did not make. It refuses (exit 4) to replace an
--out that holds a changed, staged or deleted tracked file or a commit the series
does not reproduce, and names them. To keep
them, commit them in --out and run ` + "`epp-build export --dir OUT --to RECIPE`" + `, then apply
again. With --force the tree is replaced anyway and the old one is moved to
OUT.epp-build-backup-<time> (UTC) beside it, where it stays; apply prints the path.
Untracked and ignored files (a build's outputs, go.work.sum, a staged C API library)
are not changes: like ` + "`git checkout`" + `, a re-apply leaves them in place and refuses only
when the new series would write a file where one of them is, naming it.

A local build: --capi (the recipe's capi pin, fetched and built with cargo) or
--capi-src DIR (a checkout of the C API's workspace, or the crate) builds the C API
library for this machine and stages it, with its header, where the tree's cgo binding
links it (<binding>/lib/<goarch>/ and <binding>/include/), so ` + "`go build ./cmd/epp`" + ` works
in --out; apply prints the command, with -tags when the library's variants need them.
The staged files are listed in --out's .git/info/exclude: ` + "`git add -A`" + ` and export leave
them out and a re-apply keeps them. Every apply lists there, too, /epp and /bbr, the
binaries a local go build of ./cmd/epp or ./cmd/bbr leaves at the tree's root.
--capi-only stages into --out without applying the series (any git work tree holding
the binding, such as a rebase's work tree in --exec).`,
		Example: `  epp-build apply --version v0.7.0 --out ./gaie
  epp-build apply --recipe ./my-series --out ./gaie-try
  epp-build apply --version v0.7.0 --out ./gaie --source goproxy
  epp-build apply --version v0.7.0 --out ./gaie --upstream https://mirror.example/gaie.git
  epp-build apply --version v0.7.0 --out ./gaie --force   # discard local changes, keeping a backup
  epp-build apply --version v0.7.0 --out ./gaie --regen   # after a plugin edit: regen, then re-apply in place
  epp-build apply --version v1.4.2 --out ./gaie --capi && (cd ./gaie && go build ./cmd/epp)
  epp-build apply --version v1.4.2 --out ./gaie --capi-src ../dynamo/lib/bindings/c
  epp-build apply --version v1.4.2 --out . --capi-only --capi-src ../dynamo   # stage only, into this tree`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := applyCommand(g, &f, cmd, out, regenFirst, withCAPI, capiSrc, capiFeatures, capiOnly)
			if err != nil {
				return err
			}
			res, err := apply.Do(cmd.Context(), c)
			apply.WriteResult(cmd.OutOrStdout(), cmd.ErrOrStderr(), res)
			return g.adviseOwnFolder(err)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", "folder for the patched tree (created; replaced only by a tree of epp-build's)")
	f.registerProgress(cmd)
	cmd.Flags().BoolVar(&regenFirst, "regen", false, "first rewrite the generated patches from plugins/ and ffi/ (as epp-build regen does), then apply")
	cmd.Flags().BoolVar(&withCAPI, "capi", false, "stage the recipe's C API library (built for this machine) where the tree's cgo binding links it, so go build ./cmd/epp works in the tree")
	cmd.Flags().StringVar(&capiSrc, "capi-src", "", "with --capi: build the C API from this checkout or crate instead of the recipe's pin (implies --capi)")
	cmd.Flags().StringSliceVar(&capiFeatures, "capi-features", nil, "cargo features of the C API crate to build with (comma-separated; implies --capi)")
	cmd.Flags().BoolVar(&capiOnly, "capi-only", false, "only stage the C API library into --out (any git tree holding the binding); apply nothing")
	cmd.Flags().BoolVar(&f.force, "force", false, "replace an --out holding changes apply did not make; the old tree is moved to OUT.epp-build-backup-<time>")
	return cmd
}
