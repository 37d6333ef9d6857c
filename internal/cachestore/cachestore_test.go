package cachestore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// Commits the fake cache's upstream entries are keyed by.
const (
	pinnedCommit   = "1111111111111111111111111111111111111111"
	unpinnedCommit = "2222222222222222222222222222222222222222"
)

// fakeCache is a cache folder laid out as the stages leave it, with files
// of known sizes: two upstream entries (one pinned by the recipes), a
// half-built entry, a finished and a stopped rebase, a stopped pick, a
// built-in recipes copy, a C API build and something no kind owns.
type fakeCache struct {
	dir                                               string
	pinned, unpinned, temp, finished, stopped, picked string
}

func newFakeCache(t *testing.T) fakeCache {
	t.Helper()
	dir := t.TempDir()
	c := fakeCache{
		dir:      dir,
		pinned:   filepath.Join(dir, "upstream", "git-"+pinnedCommit),
		unpinned: filepath.Join(dir, "upstream", "git-"+unpinnedCommit),
		temp:     filepath.Join(dir, "upstream", ".tmp-git-"+unpinnedCommit+"-123456"),
		finished: filepath.Join(dir, "rebase", "aaaaaaaaaaaa"),
		stopped:  filepath.Join(dir, "rebase", "bbbbbbbbbbbb"),
		picked:   filepath.Join(dir, "pick", "cccccccccccc"),
	}
	write(t, filepath.Join(c.pinned, "blobs"), 1000)
	write(t, filepath.Join(c.pinned, "entry.json"), 24)
	write(t, filepath.Join(dir, "upstream", "git-"+pinnedCommit+".lock"), 0)
	write(t, filepath.Join(c.unpinned, "blobs"), 2000)
	write(t, filepath.Join(c.temp, "blobs"), 300)
	write(t, filepath.Join(c.finished, "main.go"), 400)
	write(t, filepath.Join(c.stopped, "main.go"), 500)
	write(t, filepath.Join(c.stopped, ".git", "epp-build", "rebase.json"), 60)
	write(t, filepath.Join(dir, "rebase", "aaaaaaaaaaaa.active"), 10)
	write(t, filepath.Join(c.picked, ".git", "epp-build", "pick.json"), 70)
	write(t, filepath.Join(dir, "bundled", "0123", "patches", "recipe.yaml"), 80)
	write(t, filepath.Join(dir, "capi", "lib", "k1", "libx.a"), 90)
	write(t, filepath.Join(dir, "capi", "target", "x86_64", "big"), 900)
	write(t, filepath.Join(dir, "stray"), 5)
	return c
}

func write(t *testing.T, path string, size int) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("x", size)), 0o644))
}

func pinnedByV1() PruneOptions {
	return PruneOptions{Pinned: map[string][]string{"git-" + pinnedCommit: {"v1"}}, Recipes: "./patches"}
}

func kindOf(t *testing.T, l *Listing, k Kind) KindUsage {
	t.Helper()
	for _, ku := range l.Kinds {
		if ku.Kind == k {
			return ku
		}
	}
	t.Fatalf("no kind %s in %+v", k, l.Kinds)
	return KindUsage{}
}

func TestListCountsEachKindsEntriesAndBytes(t *testing.T) {
	c := newFakeCache(t)
	l, err := List(c.dir)
	require.NoError(t, err)
	for kind, want := range map[Kind]KindUsage{
		Upstream: {Entries: 3, Bytes: 1024 + 2000 + 300},
		Rebase:   {Entries: 2, Bytes: 400 + 500 + 60 + 10, Stopped: 1},
		Pick:     {Entries: 1, Bytes: 70, Stopped: 1},
		Bundled:  {Entries: 1, Bytes: 80},
		CAPI:     {Entries: 1, Bytes: 90 + 900},
		Other:    {Entries: 1, Bytes: 5},
		History:  {},
	} {
		got := kindOf(t, l, kind)
		assert.Equal(t, want.Entries, got.Entries, kind)
		assert.Equal(t, want.Bytes, got.Bytes, kind)
		assert.Equal(t, want.Stopped, got.Stopped, kind)
	}
	assert.Equal(t, int64(1024+2000+300+970+70+80+990+5), l.Bytes)
}

func TestListOfACacheNotMadeYetIsEmptyNotAnError(t *testing.T) {
	l, err := List(filepath.Join(t.TempDir(), "none"))
	require.NoError(t, err)
	assert.Zero(t, l.Bytes)
	assert.Equal(t, Upstream, l.Kinds[0].Kind, "every kind is listed, with nothing")
	data, err := json.Marshal(l)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "null")
}

func TestPruneRemovesFinishedWorkTreesAndUnpinnedEntriesOnly(t *testing.T) {
	c := newFakeCache(t)
	p, err := Prune(context.Background(), c.dir, pinnedByV1())
	require.NoError(t, err)

	assert.NoDirExists(t, c.finished)
	assert.NoDirExists(t, c.unpinned)
	assert.NoDirExists(t, c.temp)
	assert.FileExists(t, filepath.Join(c.stopped, ".git", "epp-build", "rebase.json"), "a stopped rebase holds the user's resolution")
	assert.FileExists(t, filepath.Join(c.stopped, "main.go"))
	assert.DirExists(t, c.picked, "a stopped pick too")
	assert.FileExists(t, filepath.Join(c.pinned, "blobs"), "pinned by a recipe")
	assert.FileExists(t, filepath.Join(c.dir, "rebase", "aaaaaaaaaaaa.active"), "notes are not work trees")
	assert.DirExists(t, filepath.Join(c.dir, "bundled", "0123"))

	assert.Equal(t, []Entry{
		{Kind: Rebase, Path: c.finished, Bytes: 400, Why: "a finished rebase's work tree"},
		{Kind: Upstream, Path: c.temp, Bytes: 300, Why: "half built by a fetch that was stopped"},
		{Kind: Upstream, Path: c.unpinned, Bytes: 2000, Why: "no recipe of the set (./patches) pins it"},
	}, p.Removed)
	assert.Equal(t, int64(2700), p.BytesFreed)
	whys := map[string]string{}
	for _, e := range p.Kept {
		whys[e.Path] = e.Why
	}
	assert.Contains(t, whys[c.stopped], "holds a stopped rebase")
	assert.Contains(t, whys[c.picked], "holds a stopped pick")
	assert.Equal(t, "pinned by v1", whys[c.pinned])
}

func TestPruneDryRunRemovesNothingAndSaysTheSame(t *testing.T) {
	c := newFakeCache(t)
	dry, err := Prune(context.Background(), c.dir, PruneOptions{Pinned: pinnedByV1().Pinned, DryRun: true})
	require.NoError(t, err)
	assert.DirExists(t, c.finished)
	assert.DirExists(t, c.unpinned)
	assert.DirExists(t, c.temp)
	wet, err := Prune(context.Background(), c.dir, PruneOptions{Pinned: pinnedByV1().Pinned})
	require.NoError(t, err)
	assert.Equal(t, wet.Removed, dry.Removed)
	assert.Equal(t, wet.BytesFreed, dry.BytesFreed)
	assert.True(t, dry.DryRun)
}

func TestPruneAllStillKeepsStoppedWorkTrees(t *testing.T) {
	c := newFakeCache(t)
	_, err := Prune(context.Background(), c.dir, PruneOptions{All: true})
	require.NoError(t, err)
	assert.NoDirExists(t, c.pinned)
	assert.NoDirExists(t, c.unpinned)
	assert.DirExists(t, c.stopped)
	assert.DirExists(t, c.picked)
}

// An entry a fetch or checkout holds, or a work tree a running rebase or
// pick holds (it has no state file until it stops), is passed by.
func TestPrunePassesByWhatIsLocked(t *testing.T) {
	c := newFakeCache(t)
	unlockEntry, ok, err := source.TryLockEntry(c.dir, "git-"+unpinnedCommit)
	require.NoError(t, err)
	require.True(t, ok)
	unlockTree, ok, err := backport.TryLockWorkTree(c.finished)
	require.NoError(t, err)
	require.True(t, ok)

	p, err := Prune(context.Background(), c.dir, PruneOptions{All: true})
	require.NoError(t, err)
	assert.DirExists(t, c.unpinned)
	assert.DirExists(t, c.temp, "a half-built entry is its key's too")
	assert.DirExists(t, c.finished)
	whys := map[string]string{}
	for _, e := range p.Kept {
		whys[e.Path] = e.Why
	}
	assert.Equal(t, "in use by a running fetch or checkout", whys[c.unpinned])
	assert.Equal(t, "a rebase command of its patches folder is running", whys[c.finished])

	unlockEntry()
	unlockTree()
	_, err = Prune(context.Background(), c.dir, PruneOptions{All: true})
	require.NoError(t, err)
	assert.NoDirExists(t, c.unpinned, "taken once released")
	assert.NoDirExists(t, c.finished)
}

// Nothing outside the cache is counted or removed through a symbolic
// link: not an entry that is a link, not a kind folder that is one.
func TestPruneNeverFollowsALinkOutOfTheCache(t *testing.T) {
	c := newFakeCache(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "entry", "blobs"), 7)
	write(t, filepath.Join(outside, "trees", "dddddddddddd", "main.go"), 7)
	require.NoError(t, os.Symlink(filepath.Join(outside, "entry"), filepath.Join(c.dir, "upstream", "git-"+strings.Repeat("3", 40))))
	require.NoError(t, os.RemoveAll(filepath.Join(c.dir, "pick")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "trees"), filepath.Join(c.dir, "pick")))
	write(t, filepath.Join(c.finished, "link-target-check"), 1)
	require.NoError(t, os.Symlink(outside, filepath.Join(c.finished, "out")))

	l, err := List(c.dir)
	require.NoError(t, err)
	assert.Equal(t, 0, kindOf(t, l, Pick).Entries)

	_, err = Prune(context.Background(), c.dir, PruneOptions{All: true})
	require.NoError(t, err)
	assert.NoDirExists(t, c.finished)
	assert.FileExists(t, filepath.Join(outside, "entry", "blobs"))
	assert.FileExists(t, filepath.Join(outside, "trees", "dddddddddddd", "main.go"))
}

// A file a work tree shares with an upstream entry (the hard-linked pack)
// is freed only when both go.
func TestPruneCountsAHardLinkedFileFreedOnlyWithItsLastLink(t *testing.T) {
	c := newFakeCache(t)
	pack := filepath.Join(c.pinned, "git", "pack.pack")
	write(t, pack, 4000)
	require.NoError(t, os.MkdirAll(filepath.Join(c.finished, ".git"), 0o755))
	require.NoError(t, os.Link(pack, filepath.Join(c.finished, ".git", "pack.pack")))

	l, err := List(c.dir)
	require.NoError(t, err)
	assert.Equal(t, int64(970+4000), kindOf(t, l, Rebase).Bytes, "each kind counts what it holds")
	assert.Equal(t, int64(1024+4000), kindOf(t, l, Upstream).Bytes-2000-300)
	assert.Equal(t, int64(1024+2000+300+970+70+80+990+5+4000), l.Bytes, "the total counts the pack once")

	p, err := Prune(context.Background(), c.dir, PruneOptions{Pinned: pinnedByV1().Pinned, DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, int64(400+300+2000), p.BytesFreed, "the pack stays with the pinned entry")
	p, err = Prune(context.Background(), c.dir, PruneOptions{All: true, DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, int64(400+4000+1024+300+2000), p.BytesFreed, "with its entry, the pack goes")
}

func TestPinnedKeysAreTheGAIEAndCAPIPinsOfEveryRecipe(t *testing.T) {
	root := filepath.Join("..", "..", "patches")
	pinned, err := PinnedKeys(root)
	require.NoError(t, err)
	r, err := recipe.LoadVersion(root, "v1.4.2")
	require.NoError(t, err)
	require.NotNil(t, r.CAPI)
	keys := append(source.EntryKeys(r.Upstream), "git-"+r.CAPI.Commit)
	require.Len(t, keys, 3, "git, module proxy and C API")
	for _, key := range keys {
		assert.Contains(t, pinned[key], "v1.4.2", key)
	}

	bad := t.TempDir()
	write(t, filepath.Join(bad, "v9", recipe.FileName), 3)
	_, err = PinnedKeys(bad)
	var invalid *recipe.ValidationError
	assert.ErrorAs(t, err, &invalid, "a recipe that does not load stops the prune")
}
