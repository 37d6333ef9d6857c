package filetree

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleTree holds every kind of entry a build tree has, with names that
// walk order and path order put in different places ("a-b.go", "a.go" and
// the folder "a").
func sampleTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"a.go": "package a\n", "a-b.go": "package a // b\n", "a/x.txt": "x\n", "a/y/z.txt": "z\n",
		"target/out": "built\n", ".git/HEAD": "ref: refs/heads/main\n", "sub/.git/config": "[core]\n", "sub/keep.txt": "keep\n",
	}
	for name, content := range files {
		write(t, filepath.Join(dir, filepath.FromSlash(name)), content, 0o644)
	}
	write(t, filepath.Join(dir, "run.sh"), "#!/bin/sh\n", 0o755)
	require.NoError(t, os.Symlink("a/x.txt", filepath.Join(dir, "link")))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))
	return dir
}

var time1 = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), mode))
	require.NoError(t, os.Chmod(path, mode))
}

// The values are the keys existing cache entries were made with: a change
// here orphans every cached C API library or linked binary.
func TestHashKeepsTheKeysOfExistingCaches(t *testing.T) {
	dir := sampleTree(t)
	capi, err := Hash(dir, HashOptions{Skip: []string{"target", ".git"}})
	require.NoError(t, err)
	assert.Equal(t, "e4b1bdc2cfc9be0220d35ecdec194393f382b9b3eb45d2b0b600e33130da3336", capi, "the C API source hash")
	binary, err := Hash(dir, HashOptions{Skip: []string{".git"}, PathOrder: true})
	require.NoError(t, err)
	assert.Equal(t, "594ed953f1b2033987c8f904fe814c482b31214aed3b98ba1d272ad0e6d3b85b", binary, "the Go module tree hash")

	walkOrder, err := Hash(dir, HashOptions{Skip: []string{".git"}})
	require.NoError(t, err)
	assert.NotEqual(t, binary, walkOrder, "the order is part of the hash")
}

func TestHashSeesWhatABuildReads(t *testing.T) {
	dir := sampleTree(t)
	hash := func() string {
		t.Helper()
		h, err := Hash(dir, HashOptions{Skip: []string{"target", ".git"}})
		require.NoError(t, err)
		return h
	}
	base := hash()
	write(t, filepath.Join(dir, "target", "more"), "x", 0o644)
	write(t, filepath.Join(dir, "sub", ".git", "index"), "x", 0o644)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "a.go"), time1, time1))
	require.NoError(t, os.Chmod(filepath.Join(dir, "a.go"), 0o600))
	assert.Equal(t, base, hash(), "skipped folders, times and non-exec permission bits do not count")

	for name, change := range map[string]func(){
		"content":  func() { write(t, filepath.Join(dir, "a.go"), "package b\n", 0o600) },
		"exec bit": func() { require.NoError(t, os.Chmod(filepath.Join(dir, "a.go"), 0o700)) },
		"link target": func() {
			require.NoError(t, os.Remove(filepath.Join(dir, "link")))
			require.NoError(t, os.Symlink("a.go", filepath.Join(dir, "link")))
		},
		"new file": func() { write(t, filepath.Join(dir, "empty", "f"), "", 0o644) },
	} {
		before := hash()
		change()
		assert.NotEqual(t, before, hash(), name)
	}
}

func TestCopyMirrorsTheTreeWithoutSkippedFolders(t *testing.T) {
	src := sampleTree(t)
	dst := filepath.Join(t.TempDir(), "copy")
	write(t, filepath.Join(dst, "stale.txt"), "from an earlier copy", 0o644)

	require.NoError(t, Copy(src, dst, ".git"))
	assert.NoFileExists(t, filepath.Join(dst, "stale.txt"))
	assert.NoDirExists(t, filepath.Join(dst, ".git"))
	assert.NoDirExists(t, filepath.Join(dst, "sub", ".git"))
	assert.DirExists(t, filepath.Join(dst, "empty"))
	data, err := os.ReadFile(filepath.Join(dst, "a", "y", "z.txt"))
	require.NoError(t, err)
	assert.Equal(t, "z\n", string(data))
	st, err := os.Stat(filepath.Join(dst, "run.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm()&0o700, "the exec bit comes along")
	link, err := os.Readlink(filepath.Join(dst, "link"))
	require.NoError(t, err)
	assert.Equal(t, "a/x.txt", link)

	same, err := Hash(src, HashOptions{Skip: []string{".git"}})
	require.NoError(t, err)
	copied, err := Hash(dst, HashOptions{Skip: []string{".git"}})
	require.NoError(t, err)
	assert.Equal(t, same, copied)
}

func TestCopyFileModes(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ro.txt")
	write(t, src, "read only", 0o444)

	kept := filepath.Join(dir, "new", "folder", "kept.txt")
	require.NoError(t, CopyFile(src, kept, 0))
	st, err := os.Stat(kept)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm()&0o700, "src's bits, writable by the owner")
	require.NoError(t, CopyFile(src, kept, 0), "a second copy replaces the first")

	exe := filepath.Join(dir, "exe")
	require.NoError(t, CopyFile(src, exe, 0o755))
	st, err = os.Stat(exe)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm()&0o700, "the bits asked for")
	data, err := os.ReadFile(exe)
	require.NoError(t, err)
	assert.Equal(t, "read only", string(data))

	assert.Error(t, CopyFile(filepath.Join(dir, "missing"), filepath.Join(dir, "x"), 0))
}
