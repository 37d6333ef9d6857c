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

// TestScanSetsLeftoversApart: an untracked file named as atomicfile names
// its temporary files is a leftover of a killed write, not the user's; a
// tracked file of that name, a folder, and a user's file that merely ends
// in .tmp are what they were. RemoveLeftovers removes the leftovers alone,
// and a folder only they kept.
func TestScanSetsLeftoversApart(t *testing.T) {
	dir := baseRepo(t, map[string]string{"a.txt": "a\n", ".tracked.epp-build-9.tmp": "in the series\n"})
	gitfixture.WriteFiles(t, dir, map[string]string{
		".a.txt.epp-build-123.tmp":          "half a write\n",
		"gone/.b.txt.epp-build-4.tmp":       "beside a file since deleted\n",
		"notes.tmp":                         "mine\n",
		".a.txt.123.tmp":                    "mine too\n",
		"dir/.x.epp-build-5.tmp/inside.txt": "in a folder of that name\n",
	})
	require.NoError(t, os.Symlink("a.txt", filepath.Join(dir, ".link.epp-build-z1.tmp")))

	scan := scanOf(t, dir)
	assert.Equal(t, []string{".a.txt.epp-build-123.tmp", ".link.epp-build-z1.tmp", "gone/.b.txt.epp-build-4.tmp"}, scan.leftovers)
	assert.Equal(t, []string{".a.txt.123.tmp", "dir/.x.epp-build-5.tmp/inside.txt", "notes.tmp"}, scan.untracked)
	assert.True(t, scan.tracked)

	l := &LocalChanges{Untracked: scan.untracked, Leftovers: scan.leftovers}
	assert.True(t, (&LocalChanges{Leftovers: scan.leftovers}).Empty(), "leftovers are no change of the user's")
	n, err := RemoveLeftovers(dir, l)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	assert.Empty(t, scanOf(t, dir).leftovers)
	assert.NoDirExists(t, filepath.Join(dir, "gone"), "a folder only a leftover kept goes with it")
	for _, p := range append(scan.untracked, ".tracked.epp-build-9.tmp") {
		assert.FileExists(t, filepath.Join(dir, filepath.FromSlash(p)))
	}
}
