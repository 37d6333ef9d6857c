package source

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckoutHealsCorruptFile: a damaged cached file costs a refetch, not
// a failure.
func TestCheckoutHealsCorruptFile(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	var notes noticeLog
	req := Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir(), Notice: notes.notice}
	tree := fetch(t, req)
	flipCached(t, tree, "foo.txt")

	dst := filepath.Join(t.TempDir(), "work")
	_, err := Checkout(context.Background(), req, dst)
	require.NoError(t, err)
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	assert.Equal(t, int64(2), srv.uploadPacks.Load())
	require.Len(t, notes.all(), 1)
	assert.Contains(t, notes.all()[0], "foo.txt")
	assert.Contains(t, notes.all()[0], "dropped it and fetching again")
}

// TestSubmoduleEntry: a gitlink becomes an empty folder and an index entry,
// and the work tree is clean.
func TestSubmoduleEntry(t *testing.T) {
	f := newFixture(t)
	// Commit adds the work tree, which has no submodule checkout; stage the
	// gitlink by hand and commit the index as it is.
	f.repo.Git(t, "update-index", "--add", "--cacheinfo", "160000,"+f.old+",third_party/sub")
	f.repo.Git(t, "commit", "--quiet", "-m", "add a submodule")
	commit := f.repo.RevParse(t, "HEAD")
	tree := fetch(t, Request{Pin: pin("", commit, commit), Kind: Path, Upstream: f.repo.Dir, CacheDir: t.TempDir()})
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, commit, f.repo, commit)
	assert.DirExists(t, filepath.Join(dst, "third_party", "sub"))
	assert.Equal(t, "160000 "+f.old+" 0\tthird_party/sub", gitfixture.Git(t, dst, "ls-files", "-s", "third_party/sub"))
}
