package source

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// fixture is an upstream with two commits and the tags a release repo has.
type fixture struct {
	repo     *gitfixture.Repo
	old, rel string // commit hashes: an older commit and the release commit
}

// newFixture builds the upstream: the release commit has nested folders, an
// executable, a symlink, a binary file and names that exercise git's tree
// ordering ("foo" the folder sorts after "foo.txt").
func newFixture(t testing.TB) *fixture {
	t.Helper()
	r := gitfixture.New(t)
	old := r.Commit(t, "first", map[string]string{"README.md": "hello\n", "go.mod": "module example.com/up\n"})
	r.Tag(t, "v0.9.0", old, true)
	r.WriteExec(t, "hack/build.sh", "#!/bin/sh\necho build\n")
	r.Symlink(t, "docs/link", "../README.md")
	r.WriteBytes(t, "assets/logo.bin", []byte{0, 1, 2, 0xff, 0xfe, 0, 'x'})
	rel := r.Commit(t, "release", map[string]string{
		"README.md":          "hello release\n",
		"pkg/a/a.go":         "package a\n",
		"pkg/a/b/b.go":       "package b\n",
		"foo/x.txt":          "x\n",
		"foo.txt":            "dot\n",
		"foo-bar":            "dash\n",
		"foo0":               "zero\n",
		"conformance/go.mod": "module example.com/up/conformance\n",
	})
	r.Tag(t, "v1.0.0", rel, true)
	r.Tag(t, "v1.0.0-light", rel, false)
	return &fixture{repo: r, old: old, rel: rel}
}

func pin(repo, ref, commit string) recipe.Upstream {
	return recipe.Upstream{Repository: repo, Ref: ref, Commit: commit}
}

// noticeLog collects Notice lines.
type noticeLog struct {
	mu    sync.Mutex
	lines []string
}

func (n *noticeLog) notice(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, fmt.Sprintf(format, args...))
}

func (n *noticeLog) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// requireWorkTree checks that dst is a clean git work tree at base whose
// tree is exactly the upstream commit's tree.
func requireWorkTree(t *testing.T, dst, base string, upstream *gitfixture.Repo, upstreamCommit string) {
	t.Helper()
	require.Equal(t, base, gitfixture.Git(t, dst, "rev-parse", "HEAD"))
	require.Equal(t, base, gitfixture.Git(t, dst, "rev-parse", "refs/epp-build/upstream"))
	require.Empty(t, gitfixture.Git(t, dst, "status", "--porcelain", "--untracked-files=all"))
	gitfixture.Git(t, dst, "fsck", "--no-dangling", "--strict")
	if upstream != nil {
		require.Equal(t,
			upstream.Git(t, "ls-tree", "-r", "--full-tree", upstreamCommit),
			gitfixture.Git(t, dst, "ls-tree", "-r", "--full-tree", "HEAD"))
	}
	// The index must match the files without re-hashing: no entry may be
	// reported as needing an update.
	require.Empty(t, gitfixture.Git(t, dst, "diff-files", "--name-only"))
}

// cacheEntries lists the folders under the cache's upstream folder (locks
// excluded), including half-built temporary ones.
func cacheEntries(t *testing.T, cacheDir string) []string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(cacheDir, "upstream"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, d := range des {
		if d.IsDir() {
			out = append(out, d.Name())
		}
	}
	sort.Strings(out)
	return out
}

func fetch(t *testing.T, req Request) *Tree {
	t.Helper()
	tree, err := Fetch(context.Background(), req)
	require.NoError(t, err)
	return tree
}

// countingServer serves repositories through git http-backend and counts
// upload-pack requests (the expensive fetches).
type countingServer struct {
	*httptest.Server
	uploadPacks atomic.Int64
}

func newCountingServer(t testing.TB, root string) *countingServer {
	t.Helper()
	cs := &countingServer{}
	h := gitfixture.Handler(t, root)
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
			cs.uploadPacks.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(cs.Close)
	return cs
}

// cachedRange returns where the cached content of path lies in tree's
// blob store.
func cachedRange(t *testing.T, tree *Tree, path string) fileEntry {
	t.Helper()
	for _, f := range tree.entry.Files {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("%s is not in the entry's file list", path)
	return fileEntry{}
}

// cachedContent reads the cached content of path from tree's blob store.
func cachedContent(t *testing.T, tree *Tree, path string) []byte {
	t.Helper()
	f := cachedRange(t, tree, path)
	store, err := os.Open(tree.blobs)
	require.NoError(t, err)
	defer store.Close()
	data := make([]byte, f.Size)
	_, err = store.ReadAt(data, f.Offset)
	require.NoError(t, err)
	return data
}

// overwriteCached writes data (as long as the cached content) over the
// cached content of path in tree's blob store, as damage on disk would.
func overwriteCached(t *testing.T, tree *Tree, path string, data []byte) {
	t.Helper()
	f := cachedRange(t, tree, path)
	require.Len(t, data, int(f.Size), "damage keeps the size of %s", path)
	store, err := os.OpenFile(tree.blobs, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = store.WriteAt(data, f.Offset)
	require.NoError(t, err)
	require.NoError(t, store.Close())
}

// flipCached changes the first byte of path's cached content.
func flipCached(t *testing.T, tree *Tree, path string) {
	t.Helper()
	data := cachedContent(t, tree, path)
	require.NotEmpty(t, data)
	data[0] ^= 0x20
	overwriteCached(t, tree, path, data)
}
