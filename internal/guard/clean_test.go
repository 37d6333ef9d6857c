package guard

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestCleanTrackedAgreesWithGit: the fast check says clean exactly when
// git status has nothing to say about tracked files.
func TestCleanTrackedAgreesWithGit(t *testing.T) {
	dir := baseRepo(t, map[string]string{"a.txt": "a\n", "deep/er/b.txt": "b\n", "run.sh": "#!/bin/sh\n"})
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "link")))
	gitfixture.Git(t, dir, "add", "link")
	gitfixture.Git(t, dir, "commit", "-q", "-m", "link")
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	trees, ok := gitstore.IndexTrees(readIndex(t, repo))
	require.True(t, ok)
	assert.Equal(t, gitfixture.Git(t, dir, "rev-parse", "HEAD^{tree}"), trees[""].String())
	assert.Equal(t, gitfixture.Git(t, dir, "rev-parse", "HEAD:deep/er"), trees["deep/er"].String())
	assert.Equal(t, gitfixture.Git(t, dir, "rev-parse", "HEAD:deep"), trees["deep"].String())
	assert.True(t, cleanTracked(repo, readIndex(t, repo), trees, dir))

	for name, change := range map[string]func(){
		"edited":  func() { gitfixture.WriteFiles(t, dir, map[string]string{"deep/er/b.txt": "changed\n"}) },
		"deleted": func() { require.NoError(t, os.Remove(filepath.Join(dir, "a.txt"))) },
		"chmod":   func() { require.NoError(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755)) },
		"staged": func() {
			gitfixture.WriteFiles(t, dir, map[string]string{"new.txt": "n\n"})
			gitfixture.Git(t, dir, "add", "new.txt")
		},
		"relinked": func() {
			os.Remove(filepath.Join(dir, "link"))
			require.NoError(t, os.Symlink("run.sh", filepath.Join(dir, "link")))
		},
	} {
		change()
		repo, err := git.PlainOpen(dir)
		require.NoError(t, err)
		assert.NotEmpty(t, gitfixture.Git(t, dir, "status", "--porcelain", "--untracked-files=no"), name)
		assert.False(t, cleanTracked(repo, readIndex(t, repo), treesOf(t, repo), dir), name)
		gitfixture.Git(t, dir, "reset", "-q", "--hard")
		gitfixture.Git(t, dir, "clean", "-qfd")
		repo, err = git.PlainOpen(dir)
		require.NoError(t, err)
		assert.True(t, cleanTracked(repo, readIndex(t, repo), treesOf(t, repo), dir), "after reset: %s", name)
	}
}

func readIndex(t *testing.T, repo *git.Repository) *index.Index {
	t.Helper()
	idx, err := repo.Storer.Index()
	require.NoError(t, err)
	return idx
}

// TestCleanTrackedSeesEditsStatDataHides: an edit that keeps the size and
// dates the file back to its recorded mtime is still seen (its ctime
// changed), and a file whose stat data was recorded in the second it was
// written is hashed, not trusted (racy git).
func TestCleanTrackedSeesEditsStatDataHides(t *testing.T) {
	dir := baseRepo(t, map[string]string{"a.txt": "aaaa\n"})
	name := filepath.Join(dir, "a.txt")
	// Date the file and the index in the past, as apply leaves a tree.
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(name, past, past))
	gitfixture.Git(t, dir, "update-index", "--refresh")
	require.NoError(t, os.Chtimes(filepath.Join(dir, ".git", "index"), past.Add(time.Minute), past.Add(time.Minute)))
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	require.True(t, cleanTracked(repo, readIndex(t, repo), treesOf(t, repo), dir), "a fresh tree is clean")

	// Same size, mtime set back: only the ctime tells.
	require.NoError(t, os.WriteFile(name, []byte("bbbb\n"), 0o644))
	require.NoError(t, os.Chtimes(name, past, past))
	assert.False(t, cleanTracked(repo, readIndex(t, repo), treesOf(t, repo), dir), "an edit with its mtime restored")

	// An index that records the edited file's own stat data (taken right
	// after the edit) with the old blob, written in the same second as the
	// file: racily clean, so the content is compared.
	require.NoError(t, os.WriteFile(name, []byte("cccc\n"), 0o644))
	fi, err := os.Lstat(name)
	require.NoError(t, err)
	var st unix.Stat_t
	require.NoError(t, unix.Lstat(name, &st))
	idx := readIndex(t, repo)
	e, err := idx.Entry("a.txt")
	require.NoError(t, err)
	e.ModifiedAt, e.CreatedAt = fi.ModTime(), time.Unix(st.Ctim.Unix())
	e.Size, e.Inode, e.UID, e.GID = uint32(fi.Size()), uint32(st.Ino), st.Uid, st.Gid
	require.NoError(t, repo.Storer.SetIndex(idx))
	indexFile := filepath.Join(dir, ".git", "index")
	// Later than the file, in the same second (when the file leaves room).
	sameSecond := fi.ModTime().Truncate(time.Second).Add(999 * time.Millisecond)
	if !sameSecond.After(fi.ModTime()) {
		sameSecond = fi.ModTime()
	}
	require.NoError(t, os.Chtimes(indexFile, sameSecond, sameSecond))
	assert.False(t, cleanTracked(repo, readIndex(t, repo), treesOf(t, repo), dir), "racily clean: hashed and found changed")
	// The same stat data recorded seconds later is trusted, as git does.
	later := fi.ModTime().Add(2 * time.Second)
	require.NoError(t, os.Chtimes(indexFile, later, later))
	assert.True(t, cleanTracked(repo, readIndex(t, repo), treesOf(t, repo), dir), "not racy: the stat data is trusted")
}

// treesOf is the index's folder hashes as a re-apply computes them.
func treesOf(t *testing.T, repo *git.Repository) map[string]plumbing.Hash {
	t.Helper()
	trees, ok := gitstore.IndexTrees(readIndex(t, repo))
	require.True(t, ok)
	return trees
}

// cleanTracked is the clean check Inspect makes, on its own: the
// index is HEAD's and every tracked file matches it.
func cleanTracked(repo *git.Repository, idx *index.Index, trees map[string]plumbing.Hash, dir string) bool {
	if !indexIsHead(repo, trees) {
		return false
	}
	written, err := indexWritten(dir)
	if err != nil {
		return false
	}
	scan, err := scanWorkTree(dir, idx, written)
	return err == nil && scan.tracked
}
