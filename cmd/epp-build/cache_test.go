package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/cachestore"
)

// A finished rebase leaves no work tree behind unless --keep; cache lists
// what is left and prune removes the kept finished tree and the upstream
// tree no recipe pins, never a stopped pick nor a pinned tree.
func TestCacheListsAndPrunesWhatNothingNeeds(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"}})
	store := filepath.Join(cache, "epp-build")

	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "removed (--keep keeps it)")
	assertNoDirs(t, filepath.Join(store, "rebase"))
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v11", "--keep")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "is yours to inspect or remove")
	kept := onlyDir(t, filepath.Join(store, "rebase"))

	stoppedPick := filepath.Join(store, "pick", "0123456789ab")
	require.NoError(t, os.MkdirAll(filepath.Join(stoppedPick, ".git", "epp-build"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(stoppedPick, ".git", "epp-build", "pick.json"), []byte("{}"), 0o644))
	unpinned := filepath.Join(store, "upstream", "git-"+strings.Repeat("3", 40))
	require.NoError(t, os.MkdirAll(unpinned, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(unpinned, "blobs"), []byte(strings.Repeat("x", 3000)), 0o644))

	r = run(t, cache, "cache")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^upstream\s+3\s`, r.stdout, "v1, v2 and the planted entry")
	assert.Regexp(t, `(?m)^rebase\s+1\s`, r.stdout)
	assert.Regexp(t, `(?m)^pick\s+1\s.*\(1 stopped, kept by prune\)$`, r.stdout)
	assert.Regexp(t, `(?m)^total\s+\S+ \S+\s+`+store+`$`, r.stdout)
	assert.Empty(t, r.stderr, "listing needs no recipes")

	r = run(t, cache, "--patches", patches, "cache", "prune", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	var p cachestore.Pruned
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &p), "stdout is the document alone:\n%s", r.stdout)
	removed := map[string]string{}
	for _, e := range p.Removed {
		removed[e.Path] = e.Why
	}
	assert.Equal(t, map[string]string{
		kept:     "a finished rebase's work tree",
		unpinned: "no recipe of the set (--patches " + patches + ") pins it",
	}, removed)
	assert.GreaterOrEqual(t, p.BytesFreed, int64(3000))
	kepts := map[string]string{}
	for _, e := range p.Kept {
		kepts[e.Path] = e.Why
	}
	assert.Contains(t, kepts[stoppedPick], "holds a stopped pick")
	assert.Equal(t, "pinned by v9", kepts[filepath.Join(store, "upstream", "git-"+u.v1)])
	assert.Equal(t, "pinned by v10, v11", kepts[filepath.Join(store, "upstream", "git-"+u.v2)])
	assert.NoDirExists(t, kept)
	assert.NoDirExists(t, unpinned)
	assert.DirExists(t, stoppedPick)

	r = run(t, cache, "--patches", patches, "cache", "prune", "-o", "json", "--dry-run")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"removed": []`, "nothing left to prune, and the list is no null")
}

func assertNoDirs(t *testing.T, folder string) {
	t.Helper()
	entries, err := os.ReadDir(folder)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, e.IsDir(), "%s is left in %s", e.Name(), folder)
	}
}

func onlyDir(t *testing.T, folder string) string {
	t.Helper()
	entries, err := os.ReadDir(folder)
	require.NoError(t, err)
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(folder, e.Name()))
		}
	}
	require.Len(t, dirs, 1, "in %s", folder)
	return dirs[0]
}
