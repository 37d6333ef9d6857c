package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestHistoryIsBloblessIncrementalAndReadWithoutGit: from a server that
// filters, the history holds commits and trees and no blob; a second
// open for a newer commit receives only what the first lacked; and the
// cached history is read with no git on the PATH.
func TestHistoryIsBloblessIncrementalAndReadWithoutGit(t *testing.T) {
	testenv.Tool(t, "git", "git http-backend serves the fixture")
	f := newFixture(t)
	f.repo.AllowFetchBySHA(t)
	f.repo.Git(t, "config", "uploadpack.allowFilter", "true")
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	url := f.repo.HTTPURL(srv.URL)
	cache := t.TempDir()
	ctx := context.Background()

	h, err := OpenHistory(ctx, cache, url, f.rel)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, UpstreamDir), filepath.Dir(h.dir), "the history lives in the upstream cache")
	assert.Zero(t, countObjects(t, h, plumbing.BlobObject), "blob:none: no file contents")
	assert.Equal(t, 2, countObjects(t, h, plumbing.CommitObject))
	require.NoError(t, h.Close())

	top := f.repo.Commit(t, "touch pkg", map[string]string{"pkg/a/a.go": "package a // touched\n"})
	h, err = OpenHistory(ctx, cache, url, f.rel, top)
	require.NoError(t, err)
	defer h.Close()
	packs := packIndexes(t, h.dir)
	require.Len(t, packs, 2)
	newer := packs[0]
	if ok, _ := newer.Contains(plumbing.NewHash(top)); !ok {
		newer = packs[1]
	}
	for _, old := range []string{f.old, f.rel} {
		ok, err := newer.Contains(plumbing.NewHash(old))
		require.NoError(t, err)
		assert.False(t, ok, "the second fetch did not receive %s again", old)
	}
	n, err := newer.Count()
	require.NoError(t, err)
	assert.Equal(t, int64(4), n, "the new commit, its root tree, pkg and pkg/a")
	assert.EqualValues(t, 2, srv.uploadPacks.Load())

	srv.Close()
	t.Setenv("PATH", t.TempDir())
	h, err = OpenHistory(ctx, cache, url, f.rel, top)
	require.NoError(t, err)
	defer h.Close()
	in, err := h.IsAncestor(ctx, f.old, top)
	require.NoError(t, err)
	assert.True(t, in)
	commits, err := h.Between(ctx, f.old, top, []string{"pkg/a"})
	require.NoError(t, err)
	assert.Equal(t, []Commit{{Hash: top, Subject: "touch pkg"}, {Hash: f.rel, Subject: "release"}}, commits)
}

// TestHistoryOfACommitNoRefNamesComesThroughTheBranchesAndTags: a server
// that neither serves commits by hash nor filters still gives a commit
// behind an annotated tag, through the history of its branches and tags;
// a commit it does not have is named.
func TestHistoryOfACommitNoRefNamesComesThroughTheBranchesAndTags(t *testing.T) {
	testenv.Tool(t, "git", "git http-backend serves the fixture")
	f := newFixture(t)
	f.repo.Commit(t, "after the release", map[string]string{"README.md": "later\n"})
	url := f.repo.HTTPURL(gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir)))
	ctx := context.Background()

	h, err := OpenHistory(ctx, t.TempDir(), url, f.rel)
	require.NoError(t, err)
	defer h.Close()
	in, err := h.IsAncestor(ctx, f.old, f.rel)
	require.NoError(t, err)
	assert.True(t, in)
	assert.Positive(t, countObjects(t, h, plumbing.BlobObject), "no filter: the blobs come too")

	_, err = OpenHistory(ctx, t.TempDir(), url, strings.Repeat("ab", 20))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the server sent no commit ababababab")
}

// TestBetweenListsWhatGitLogLists compares Between with `git log A..B --
// PATH` on a history with branches and merges, one of which takes a
// file unchanged from one side (git then follows that side only).
func TestBetweenListsWhatGitLogLists(t *testing.T) {
	testenv.Tool(t, "git", "git log is the reference")
	r := gitfixture.New(t)
	base := r.Commit(t, "base", map[string]string{"a.txt": "a\n", "d/b.txt": "b\n", "c.txt": "c\n"})
	r.Git(t, "checkout", "-q", "-b", "side")
	r.Commit(t, "side b", map[string]string{"d/b.txt": "b side\n"})
	r.Git(t, "checkout", "-q", "main")
	r.Commit(t, "main c", map[string]string{"c.txt": "c main\n"})
	r.Git(t, "merge", "-q", "--no-edit", "side")
	r.Git(t, "checkout", "-q", "-b", "dropped")
	r.Commit(t, "dropped a", map[string]string{"a.txt": "a dropped\n"})
	r.Git(t, "checkout", "-q", "main")
	r.Commit(t, "main a", map[string]string{"a.txt": "a main\n"})
	r.Git(t, "merge", "-q", "--no-edit", "-s", "ours", "dropped")
	r.Commit(t, "after", map[string]string{"d/new.txt": "n\n"})
	top := r.RevParse(t, "HEAD")
	ctx := context.Background()
	h, err := OpenHistory(ctx, t.TempDir(), r.FileURL(), top)
	require.NoError(t, err)
	defer h.Close()

	for _, paths := range [][]string{nil, {"a.txt"}, {"d"}, {"d/b.txt"}, {"c.txt", "a.txt"}, {"missing"}} {
		args := []string{"log", "--format=%H", base + ".." + top}
		if len(paths) > 0 {
			args = append(append(args, "--"), paths...)
		}
		want := strings.Fields(r.Git(t, args...))
		commits, err := h.Between(ctx, base, top, paths)
		require.NoError(t, err)
		got := []string{}
		for _, c := range commits {
			got = append(got, c.Hash)
		}
		assert.Equal(t, want, got, "paths %v", paths)
	}
}

func countObjects(t *testing.T, h *History, typ plumbing.ObjectType) int {
	t.Helper()
	iter, err := h.store().IterEncodedObjects(typ)
	require.NoError(t, err)
	n := 0
	require.NoError(t, iter.ForEach(func(plumbing.EncodedObject) error { n++; return nil }))
	return n
}

func packIndexes(t *testing.T, gitDir string) []*idxfile.MemoryIndex {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "pack-*.idx"))
	require.NoError(t, err)
	var out []*idxfile.MemoryIndex
	for _, name := range names {
		f, err := os.Open(name)
		require.NoError(t, err)
		idx := idxfile.NewMemoryIndex()
		require.NoError(t, idxfile.NewDecoder(f).Decode(idx))
		f.Close()
		out = append(out, idx)
	}
	return out
}
