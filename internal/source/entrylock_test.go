package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A prune that removed the entry between Fetch and Materialize costs a
// fetch, not the checkout.
func TestMaterializeFetchesAnEntryRemovedSinceFetch(t *testing.T) {
	f := newFixture(t)
	cache := t.TempDir()
	tree := fetch(t, Request{Pin: pin("", "v1.0.0", f.rel), Kind: Path, Upstream: f.repo.Dir, CacheDir: cache})
	unlock, ok, err := TryLockEntry(cache, "git-"+f.rel)
	require.NoError(t, err)
	require.True(t, ok, "nobody holds the entry after Fetch")
	require.NoError(t, os.RemoveAll(tree.dir))
	unlock()

	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	assert.DirExists(t, filepath.Join(cache, UpstreamDir, "git-"+f.rel), "fetched again")
}

// A checkout takes the entry's lock (shared), so it and a prune, which
// takes it exclusively, never overlap: held by the prune, the checkout
// waits for it.
func TestMaterializeWaitsForAPruneHoldingTheEntry(t *testing.T) {
	f := newFixture(t)
	cache := t.TempDir()
	tree := fetch(t, Request{Pin: pin("", "v1.0.0", f.rel), Kind: Path, Upstream: f.repo.Dir, CacheDir: cache})
	unlock, ok, err := TryLockEntry(cache, "git-"+f.rel)
	require.NoError(t, err)
	require.True(t, ok)
	done := make(chan error, 1)
	go func() { done <- tree.Materialize(context.Background(), filepath.Join(t.TempDir(), "work")) }()
	select {
	case err := <-done:
		t.Fatalf("Materialize ran while the entry was locked: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	require.NoError(t, <-done)
	unlock, ok, err = TryLockEntry(cache, "git-"+f.rel)
	require.NoError(t, err)
	assert.True(t, ok, "released after the checkout")
	unlock()
}

func TestTempEntryKey(t *testing.T) {
	key, ok := TempEntryKey(".tmp-git-0123abcd-123456")
	assert.True(t, ok)
	assert.Equal(t, "git-0123abcd", key)
	_, ok = TempEntryKey("git-0123abcd")
	assert.False(t, ok)
	_, ok = TempEntryKey(".tmp-123")
	assert.False(t, ok)
}
