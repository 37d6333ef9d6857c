package guard

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestScanUntrackedIsGitsOthers: the untracked files are what `git
// ls-files --others` lists (ignored files included, a nested repository as
// one "path/" entry), and an untracked file does not make the tracked
// files unclean.
func TestScanUntrackedIsGitsOthers(t *testing.T) {
	dir := baseRepo(t, map[string]string{"a.txt": "a\n", "deep/er/b.txt": "b\n", "run.sh": "#!/bin/sh\n"})
	gitfixture.WriteFiles(t, dir, map[string]string{
		"new.txt":               "untracked\n",
		"build.log":             "ignored\n",
		"deep/er/c.txt":         "beside a tracked file\n",
		"fresh/folder/d.txt":    "in a new folder\n",
		"nested/inner/file.txt": "in a nested repository\n",
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("*.log\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty", "folder"), 0o755))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, "deep", "link")))
	gitfixture.Git(t, filepath.Join(dir, "nested"), "init", "-q")

	scan := scanOf(t, dir)

	want := strings.Fields(gitfixture.Git(t, dir, "ls-files", "--others"))
	sort.Strings(want)
	assert.Equal(t, want, scan.untracked)
	assert.Contains(t, scan.untracked, "nested/")
	assert.Contains(t, scan.untracked, "build.log")
	assert.True(t, scan.tracked, "untracked files leave the tracked ones clean")
}

// TestScanTrackedPathNowAFolder: a tracked file replaced by a folder is
// not clean, and the folder's files are untracked.
func TestScanTrackedPathNowAFolder(t *testing.T) {
	dir := baseRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	require.NoError(t, os.Remove(filepath.Join(dir, "a.txt")))
	gitfixture.WriteFiles(t, dir, map[string]string{"a.txt/inside": "x\n"})
	scan := scanOf(t, dir)
	assert.False(t, scan.tracked)
	assert.Equal(t, []string{"a.txt/inside"}, scan.untracked)
}

// scanOf scans the work tree dir against its own index.
func scanOf(t *testing.T, dir string) *workTreeScan {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	written, err := indexWritten(dir)
	require.NoError(t, err)
	scan, err := scanWorkTree(dir, readIndex(t, repo), written)
	require.NoError(t, err)
	return scan
}
