package cachestore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/source"
)

// PruneOptions say what prune may remove besides finished work trees.
type PruneOptions struct {
	// Pinned are the upstream entry keys the recipe set uses, each with
	// the versions that pin it (PinnedKeys); ignored with All.
	Pinned map[string][]string
	// Recipes names the recipe set (./patches, --patches DIR, built into
	// epp-build V) in the reason an entry goes.
	Recipes string
	// All removes every upstream entry, pinned or not.
	All bool
	// DryRun removes nothing and says what would go.
	DryRun bool
}

// Pruned is what a prune removed (or, dry, would remove) and kept.
type Pruned struct {
	Dir     string  `json:"dir"`
	DryRun  bool    `json:"dryRun"`
	Removed []Entry `json:"removed"`
	Kept    []Entry `json:"kept"`
	// BytesFreed counts each file once, and only the files whose every
	// hard link went: a pack a kept work tree shares with a removed
	// entry frees nothing.
	BytesFreed int64 `json:"bytesFreed"`
}

// Entry is one cache entry prune removed or kept, and why.
type Entry struct {
	Kind  Kind   `json:"kind"`
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Why   string `json:"why"`
}

// Prune removes from the cache at dir the finished rebase and pick work
// trees and the upstream entries opt does not keep. It never removes a
// work tree holding a stopped rebase or pick, nor one a running rebase or
// pick holds, nor an upstream entry a fetch or checkout holds: each is
// taken under the lock its users take, and passed by while they hold it.
func Prune(ctx context.Context, dir string, opt PruneOptions) (*Pruned, error) {
	p := &pruner{Pruned: &Pruned{Dir: dir, DryRun: opt.DryRun, Removed: []Entry{}, Kept: []Entry{}}, opt: opt, usage: newUsage()}
	for _, kind := range []Kind{Rebase, Pick} {
		if err := p.workTrees(ctx, kind); err != nil {
			return p.done(), err
		}
	}
	if err := p.upstream(ctx); err != nil {
		return p.done(), err
	}
	err := p.oldHistories(ctx)
	return p.done(), err
}

// oldHistories removes the histories an older epp-build kept in a folder
// of their own: nothing reads them any more.
func (p *pruner) oldHistories(ctx context.Context) error {
	folder := filepath.Join(p.Dir, string(History))
	names, err := children(folder)
	if err != nil {
		return err
	}
	for _, c := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := p.remove(History, filepath.Join(folder, c.Name()), "a history an older epp-build made; none reads it now"); err != nil {
			return err
		}
	}
	return nil
}

type pruner struct {
	*Pruned
	opt   PruneOptions
	usage *usage
}

func (p *pruner) done() *Pruned {
	p.BytesFreed = p.usage.freed()
	return p.Pruned
}

func (p *pruner) keep(kind Kind, path, why string) error {
	n, err := newUsage().add(path)
	p.Kept = append(p.Kept, Entry{Kind: kind, Path: path, Bytes: n, Why: why})
	return err
}

// remove removes path (not following links) unless dry, counting what
// it frees; the caller holds its lock.
func (p *pruner) remove(kind Kind, path, why string) error {
	mine, err := newUsage().add(path)
	if err != nil {
		return err
	}
	if _, err := p.usage.add(path); err != nil {
		return err
	}
	if !p.DryRun {
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("remove %s: %w", path, err)
		}
	}
	p.Removed = append(p.Removed, Entry{Kind: kind, Path: path, Bytes: mine, Why: why})
	return nil
}

func (p *pruner) workTrees(ctx context.Context, kind Kind) error {
	trees, err := entriesOf(p.Dir, kind)
	if err != nil {
		return err
	}
	for _, tree := range trees.entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := p.workTree(kind, tree); err != nil {
			return err
		}
	}
	return nil
}

func (p *pruner) workTree(kind Kind, tree string) error {
	unlock, ok, err := backport.TryLockWorkTree(tree)
	if err != nil {
		return err
	}
	if !ok {
		return p.keep(kind, tree, fmt.Sprintf("a %s command of its patches folder is running", kind))
	}
	defer unlock()
	if stopped(tree) {
		return p.keep(kind, tree, fmt.Sprintf("holds a stopped %s: finish it with `epp-build %s --continue` or throw it away with --abort", kind, kind))
	}
	return p.remove(kind, tree, fmt.Sprintf("a finished %s's work tree", kind))
}

// upstream prunes the upstream entries and what killed fetches left.
func (p *pruner) upstream(ctx context.Context) error {
	folder := filepath.Join(p.Dir, string(Upstream))
	names, err := children(folder)
	if err != nil {
		return err
	}
	for _, c := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := c.Name()
		key, temp := source.TempEntryKey(name)
		switch {
		case strings.HasSuffix(name, source.EntryLockSuffix):
			continue // shared with the entry's next fetch
		case !c.IsDir():
			continue // not an entry a fetch made; left alone
		case temp:
			err = p.upstreamEntry(key, filepath.Join(folder, name), "half built by a fetch that was stopped")
		case source.IsHistoryKey(name) && !p.opt.All:
			// No recipe pins a history, and fetching it again costs the
			// most: only --all takes it.
			err = p.keep(History, filepath.Join(folder, name), "an upstream history (log, diff-series and rebase read it; --all removes it)")
		case p.opt.All:
			err = p.upstreamEntry(name, filepath.Join(folder, name), "--all")
		case len(p.opt.Pinned[name]) > 0:
			err = p.keep(Upstream, filepath.Join(folder, name), "pinned by "+strings.Join(p.opt.Pinned[name], ", "))
		default:
			err = p.upstreamEntry(name, filepath.Join(folder, name), "no recipe of the set"+p.recipes()+" pins it")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *pruner) recipes() string {
	if p.opt.Recipes == "" {
		return ""
	}
	return " (" + p.opt.Recipes + ")"
}

// upstreamEntry removes the entry (or half-built entry) path of key under
// the key's lock, or keeps it while a fetch or checkout holds that.
func (p *pruner) upstreamEntry(key, path, why string) error {
	unlock, ok, err := source.TryLockEntry(p.Dir, key)
	if err != nil {
		return err
	}
	kind := Upstream
	if source.IsHistoryKey(key) {
		kind = History
	}
	if !ok {
		return p.keep(kind, path, "in use by a running fetch or checkout")
	}
	defer unlock()
	return p.remove(kind, path, why)
}
