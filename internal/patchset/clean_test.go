package patchset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCleanTrackedAgreesWithGit: the fast check says clean exactly when
// git status has nothing to say about tracked files.
func TestCleanTrackedAgreesWithGit(t *testing.T) {
	dir := baseRepo(t, map[string]string{"a.txt": "a\n", "deep/er/b.txt": "b\n", "run.sh": "#!/bin/sh\n"})
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "link")))
	gitRun(t, dir, "add", "link")
	gitRun(t, dir, "commit", "-q", "-m", "link")
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	tree, ok := indexTree(readIndex(t, repo))
	require.True(t, ok)
	assert.Equal(t, gitRun(t, dir, "rev-parse", "HEAD^{tree}"), tree.String())
	assert.True(t, cleanTracked(repo, readIndex(t, repo), dir))

	for name, change := range map[string]func(){
		"edited":  func() { writeFiles(t, dir, map[string]string{"deep/er/b.txt": "changed\n"}) },
		"deleted": func() { require.NoError(t, os.Remove(filepath.Join(dir, "a.txt"))) },
		"chmod":   func() { require.NoError(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755)) },
		"staged":  func() { writeFiles(t, dir, map[string]string{"new.txt": "n\n"}); gitRun(t, dir, "add", "new.txt") },
		"relinked": func() {
			os.Remove(filepath.Join(dir, "link"))
			require.NoError(t, os.Symlink("run.sh", filepath.Join(dir, "link")))
		},
	} {
		change()
		repo, err := git.PlainOpen(dir)
		require.NoError(t, err)
		assert.NotEmpty(t, gitRun(t, dir, "status", "--porcelain", "--untracked-files=no"), name)
		assert.False(t, cleanTracked(repo, readIndex(t, repo), dir), name)
		gitRun(t, dir, "reset", "-q", "--hard")
		gitRun(t, dir, "clean", "-qfd")
		repo, err = git.PlainOpen(dir)
		require.NoError(t, err)
		assert.True(t, cleanTracked(repo, readIndex(t, repo), dir), "after reset: %s", name)
	}
}

func readIndex(t *testing.T, repo *git.Repository) *index.Index {
	t.Helper()
	idx, err := repo.Storer.Index()
	require.NoError(t, err)
	return idx
}
