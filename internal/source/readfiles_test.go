package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReadFiles gives the named files of a cached tree as the commit has them,
// a symlink as its target, and leaves out what the tree does not hold;
// nothing is written outside the cache.
func TestReadFilesGivesTheCommitsFilesWithoutACheckout(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	cache := t.TempDir()
	tree := fetch(t, Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: cache})
	before := cacheEntries(t, cache)

	got, err := tree.ReadFiles(context.Background(), []string{"pkg/a/b/b.go", "README.md", "docs/link", "no/such.go", "pkg/a"})
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{
		"pkg/a/b/b.go": []byte("package b\n"),
		"README.md":    []byte("hello release\n"),
		"docs/link":    []byte("../README.md"),
	}, got, "a folder and a missing path are left out")
	assert.Equal(t, before, cacheEntries(t, cache))
}

// A cached file changed on disk is found by ReadFiles as by Materialize:
// every file read is checked against its blob hash, whatever the stat data
// says.
func TestReadFilesFindsATamperedEntry(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	tree := fetch(t, Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})

	flipCached(t, tree, "pkg/a/a.go")

	_, err := tree.ReadFiles(context.Background(), []string{"pkg/a/a.go"})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "pkg/a/a.go")
	got, err := tree.ReadFiles(context.Background(), []string{"README.md"})
	require.NoError(t, err, "a file not asked for is not read")
	assert.Equal(t, "hello release\n", string(got["README.md"]))
}

// An entry a prune removed after the fetch is reported as gone, for the
// caller to fetch again.
func TestReadFilesOfAPrunedEntry(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	tree := fetch(t, Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.NoError(t, os.RemoveAll(tree.dir))

	_, err := tree.ReadFiles(context.Background(), []string{"README.md"})
	require.ErrorIs(t, err, errEntryGone)
}
