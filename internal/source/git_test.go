package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestFetchGitRefs fetches each kind of pin over each transport and checks
// the work tree against the upstream commit.
func TestFetchGitRefs(t *testing.T) {
	f := newFixture(t)
	f.repo.AllowFetchBySHA(t)
	base := gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir))
	transports := map[string]string{
		"file": f.repo.FileURL(),
		"path": f.repo.Dir,
		"http": f.repo.HTTPURL(base),
	}
	refs := map[string]string{
		"annotated tag":   "v1.0.0",
		"lightweight tag": "v1.0.0-light",
		"full ref name":   "refs/tags/v1.0.0",
		"commit":          f.rel,
	}
	wantTime := f.repo.Git(t, "show", "-s", "--format=%ct", f.rel)
	for tname, url := range transports {
		for rname, ref := range refs {
			t.Run(tname+"/"+rname, func(t *testing.T) {
				tree := fetch(t, Request{Pin: pin(url, ref, f.rel), Kind: Git, CacheDir: t.TempDir()})
				assert.Equal(t, f.rel, tree.Commit)
				assert.Equal(t, f.rel, tree.BaseCommit)
				assert.Equal(t, Git, tree.Via)
				assert.Equal(t, wantTime, strconv.FormatInt(tree.Time.Unix(), 10))
				dst := filepath.Join(t.TempDir(), "work")
				require.NoError(t, tree.Materialize(context.Background(), dst))
				requireWorkTree(t, dst, f.rel, f.repo, f.rel)
				// Only the pinned commit was fetched: the repository is shallow.
				assert.Equal(t, "true", gitfixture.Git(t, dst, "rev-parse", "--is-shallow-repository"))
				assert.Equal(t, "1", gitfixture.Git(t, dst, "rev-list", "--count", "HEAD"))
			})
		}
	}
}

// TestFetchGitCommitPinWithoutFetchBySHA: git http-backend by default
// refuses wants for commits it did not advertise. A commit pin is then
// found through the refs: fetched as the ref whose tip it is, or from the
// history of the branches and tags (shallow first, then whole).
func TestFetchGitCommitPinWithoutFetchBySHA(t *testing.T) {
	f := newFixture(t)
	mid := f.repo.Commit(t, "between releases", map[string]string{"pkg/a/a.go": "package a // mid\n"})
	head := f.repo.Commit(t, "tip of main", map[string]string{"README.md": "tip\n"})
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	url := f.repo.HTTPURL(srv.URL)
	cases := []struct {
		name, commit string
		depths       []int
	}{
		{"at a tag tip", f.rel, refsScanDepths},
		{"at a branch tip", head, refsScanDepths},
		{"below every tip", mid, refsScanDepths},
		{"below the shallow depth", f.old, []int{1, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func(d []int) { refsScanDepths = d }(refsScanDepths)
			refsScanDepths = c.depths
			tree := fetch(t, Request{Pin: pin(url, c.commit, c.commit), Kind: Git, CacheDir: t.TempDir()})
			assert.Equal(t, c.commit, tree.Commit)
			dst := filepath.Join(t.TempDir(), "work")
			require.NoError(t, tree.Materialize(context.Background(), dst))
			requireWorkTree(t, dst, c.commit, f.repo, c.commit)
			assert.Equal(t, "1", gitfixture.Git(t, dst, "rev-list", "--count", "HEAD"), "the entry holds the commit alone")
		})
	}

	// A commit no ref reaches is named as such.
	orphan := f.repo.Git(t, "commit-tree", "-p", f.old, "-m", "dangling", f.old+"^{tree}")
	_, err := Fetch(context.Background(), Request{Pin: pin(url, orphan, orphan), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "in the history of no branch or tag")
	assert.Contains(t, err.Error(), orphan)
}

// TestFetchGitMovedTag: a tag that now names another commit is refused,
// naming both commits and the ref, and nothing is cached.
func TestFetchGitMovedTag(t *testing.T) {
	f := newFixture(t)
	f.repo.MoveTag(t, "v0.9.0", f.rel, true)
	base := gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir))
	for name, url := range map[string]string{"http": f.repo.HTTPURL(base), "file": f.repo.FileURL()} {
		t.Run(name, func(t *testing.T) {
			cache := t.TempDir()
			_, err := Fetch(context.Background(), Request{Pin: pin(url, "v0.9.0", f.old), Kind: Git, CacheDir: cache})
			var mm *MismatchError
			require.ErrorAs(t, err, &mm)
			assert.Equal(t, MismatchError{Ref: "v0.9.0", Want: f.old, Got: f.rel, Repository: url}, *mm)
			assert.Contains(t, err.Error(), f.old)
			assert.Contains(t, err.Error(), f.rel)
			assert.Empty(t, cacheEntries(t, cache))
		})
	}
}

// TestFetchGitMissingRef names the ref and the repository.
func TestFetchGitMissingRef(t *testing.T) {
	f := newFixture(t)
	base := gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir))
	url := f.repo.HTTPURL(base)
	_, err := Fetch(context.Background(), Request{Pin: pin(url, "v9.9.9", f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "v9.9.9")
	assert.Contains(t, err.Error(), url)
	var fe *fetchError
	assert.ErrorAs(t, err, &fe, "a missing ref is a fetch failure (auto may fall back)")
}

// TestFetchCacheReuseWithoutNetwork: the second Fetch is served from the
// cache even though the server is gone; the only trace is one notice that
// the tag could not be confirmed.
func TestFetchCacheReuseWithoutNetwork(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	cache := t.TempDir()
	req := Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: cache}
	first := fetch(t, req)
	srv.Close()

	var notes noticeLog
	req.Notice = notes.notice
	second := fetch(t, req)
	assert.Equal(t, first.dir, second.dir)
	assert.Equal(t, first.GitDir, second.GitDir)
	require.Len(t, notes.all(), 1)
	assert.Contains(t, notes.all()[0], "could not confirm that tag v1.0.0")
	assert.Equal(t, int64(1), srv.uploadPacks.Load())

	// Auto and path requests for the same commit share the entry.
	auto := fetch(t, Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), CacheDir: cache})
	assert.Equal(t, first.dir, auto.dir)
	assert.Equal(t, Git, auto.Via)
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, second.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
}

// TestMaterializeRefusesExistingDst never writes into an existing folder.
func TestMaterializeRefusesExistingDst(t *testing.T) {
	f := newFixture(t)
	tree := fetch(t, Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})
	dst := t.TempDir()
	err := tree.Materialize(context.Background(), dst)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already exists")
	err = tree.Materialize(context.Background(), filepath.Join(dst, "no", "parent"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "parent folder")
}

// TestMaterializeCopiesWorkTreeFiles: work-tree files are never hard links
// into the cache (users edit them); the pack may be.
func TestMaterializeCopiesWorkTreeFiles(t *testing.T) {
	f := newFixture(t)
	tree := fetch(t, Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	require.NoError(t, os.WriteFile(filepath.Join(dst, "README.md"), []byte("edited\n"), 0o644))
	assert.Equal(t, "hello release\n", string(cachedContent(t, tree, "README.md")))
	fi, err := os.Stat(filepath.Join(dst, "hack", "build.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm()&0o755)
	target, err := os.Readlink(filepath.Join(dst, "docs", "link"))
	require.NoError(t, err)
	assert.Equal(t, "../README.md", target)
	assert.Equal(t, "M README.md", gitfixture.Git(t, dst, "status", "--porcelain"))
}

func TestFetchRejectsShortCommit(t *testing.T) {
	_, err := Fetch(context.Background(), Request{Pin: pin("file:///nowhere", "v1", "abc123"), CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "40-hex")
	assert.False(t, errors.Is(err, ErrCorrupt))
}
