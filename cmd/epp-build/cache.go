package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/cachestore"
	"github.com/epp-build/epp-build/internal/outfmt"
)

// newCacheCommand lists the cache (bare, or cache list) and prunes it.
func newCacheCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache [list] | cache prune [--dry-run] [--all]",
		Short: "List what the cache holds, per kind and size, or prune what nothing needs",
		Long: `cache (or cache list) prints one line per kind of entry the cache holds (fetched
upstream trees, rebase and pick work trees, build trees and work folders, C API
builds, compiled binaries, built-in recipe copies, upstream histories), with how many
and their size, and the total. A file hard-linked into two kinds (a work tree's pack)
counts in each, once in the total. -o json prints one document; its lists are [] when
empty.

cache prune removes the finished rebase and pick work trees and the fetched upstream
trees no recipe of the set (--patches, as for the other commands) pins, and prints
each with its size and the bytes freed.`,
		Example: `  epp-build cache
  epp-build cache list -o json
  epp-build cache prune --dry-run
  epp-build cache prune --all`,
		Args: usageArgs(cobra.NoArgs),
	}
	cacheListFlags(cmd)
	list := &cobra.Command{
		Use:   "list",
		Short: "List what the cache holds: one line per kind, with count and size",
		Example: `  epp-build cache list
  epp-build cache list --cache-dir /var/cache/epp-build -o json`,
		Args: usageArgs(cobra.NoArgs),
	}
	cacheListFlags(list)
	cmd.AddCommand(list, newCachePruneCommand(g))
	return cmd
}

// cacheListFlags makes cmd list the cache: bare cache, and cache list.
func cacheListFlags(cmd *cobra.Command) {
	var output outfmt.Format
	cacheDirFlag(cmd)
	outputFlag(cmd, &output)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		dir, err := cacheDirOf(cmd)
		if err != nil {
			return err
		}
		l, err := cachestore.List(dir)
		if err != nil {
			return err
		}
		return render(cmd, output, l, func(w io.Writer) error { return cachestore.WriteListingMarkdown(w, l) },
			func(w io.Writer) error { return cachestore.WriteListing(w, l) })
	}
}

func newCachePruneCommand(g *globalFlags) *cobra.Command {
	var output outfmt.Format
	var dryRun, all bool
	cmd := &cobra.Command{
		Use:   "prune [--dry-run] [--all]",
		Short: "Remove finished work trees and the upstream trees no recipe pins",
		Long: `prune removes from the cache:

- the rebase and pick work trees under it that hold no stopped rebase or pick (one
  that is stopped holds your conflict resolution, and is always kept; one a rebase
  or pick is running in is passed by);
- the fetched upstream trees (GAIE and C API pins) that no recipe of the set pins
  (--patches, else ./patches, else the built-in recipes), or every one with --all;
  an entry a running apply or build is fetching or checking out is passed by, and
  what a stopped fetch left half built goes too;
- with --all, the upstream histories (log, diff-series and rebase fetch them again
  when they need them), which prune otherwise keeps; the histories an older
  epp-build kept in the cache's history folder always go.

Each entry is taken under the lock its users take, and nothing outside the cache is
followed through a symbolic link. It prints what it removed and what it kept, with
sizes and why, then the bytes freed (a file hard-linked from a kept entry frees
nothing); --dry-run prints the same and removes nothing. A recipe that does not load
stops it (exit 4): what that recipe pins cannot be told apart.`,
		Example: `  epp-build cache prune --dry-run
  epp-build cache prune
  epp-build cache prune --all -o json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := cacheDirOf(cmd)
			if err != nil {
				return err
			}
			opt := cachestore.PruneOptions{All: all, DryRun: dryRun}
			if !all {
				if opt.Pinned, err = cachestore.PinnedKeys(g.patches); err != nil {
					return err
				}
				opt.Recipes = g.patches
				if g.set != nil {
					opt.Recipes = g.set.String()
				}
			}
			p, err := cachestore.Prune(cmd.Context(), dir, opt)
			if p != nil {
				if rerr := render(cmd, output, p, func(w io.Writer) error { return cachestore.WritePrunedMarkdown(w, p) },
					func(w io.Writer) error { return cachestore.WritePruned(w, p) }); err == nil {
					err = rerr
				}
			}
			return err
		},
	}
	cacheDirFlag(cmd)
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be removed and freed; remove nothing")
	cmd.Flags().BoolVar(&all, "all", false, "remove every upstream tree, also those a recipe pins (a stopped rebase or pick is still kept)")
	return cmd
}

// cacheDirFlag registers --cache-dir as the fetching commands have it.
func cacheDirFlag(cmd *cobra.Command) {
	cmd.Flags().String("cache-dir", "", "the cache to list or prune (default: the user cache folder + /epp-build)")
}
