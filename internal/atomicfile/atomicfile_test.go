package atomicfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesTheFileWithItsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))

	require.NoError(t, Write(path, []byte("new"), 0o644))

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left beside it")
}

// A FIFO or a symlink under the name a writer with a fixed temporary name
// would use neither blocks the write nor receives it.
func TestWriteIgnoresWhatLiesAtAFixedTemporaryName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	require.NoError(t, syscall.Mkfifo(path+".tmp", 0o644))
	outside := filepath.Join(t.TempDir(), "outside")
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, ".report.json.tmp")))

	require.NoError(t, testutil.Returns(t, "Write", func() error { return Write(path, []byte("{}"), 0o644) }))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "{}", string(data))
	_, err = os.Lstat(outside)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written through the symlink")
}

func TestWriteIntoAMissingFolderLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644)
	require.Error(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestAFailedWriteLeavesTheOldFileAndNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	syncFile = func(*os.File) error { return errors.New("disk full") }
	t.Cleanup(func() { syncFile = (*os.File).Sync })

	require.ErrorContains(t, Write(path, []byte("new"), 0o644), "disk full")

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the temporary file is removed")
}

func TestAnAbortedStreamLeavesTheOldFileAndNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "image.tar")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))

	f, err := Create(path, 0o644)
	require.NoError(t, err)
	_, err = f.Write([]byte("half a tarball"))
	require.NoError(t, err)
	f.Abort()
	f.Abort()
	require.Error(t, f.Commit(), "an aborted file cannot be committed")

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

func TestAStreamIsInvisibleUntilCommitted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "image.tar")
	f, err := Create(path, 0o600)
	require.NoError(t, err)
	defer f.Abort()
	_, err = f.Write([]byte("part one, "))
	require.NoError(t, err)
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = f.Write([]byte("part two"))
	require.NoError(t, err)
	require.NoError(t, f.Commit())

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "part one, part two", string(data))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

// Two writers of one path, as two builds sharing a cache are, each
// install a whole file of their own: neither writes into the other's
// temporary file or renames it away.
func TestConcurrentWritersDoNotCollide(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "binary")
	contents := [][]byte{bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20)}
	var wg sync.WaitGroup
	errs := make(chan error, 2*20)
	for _, c := range contents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				errs <- Write(path, c, 0o755)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(data, contents[0]) || bytes.Equal(data, contents[1]), "the file is one writer's whole content")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

func TestSymlinkReplacesAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "link")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))

	require.NoError(t, Symlink("target", path))

	got, err := os.Readlink(path)
	require.NoError(t, err)
	assert.Equal(t, "target", got)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

// What a kill between making a temporary file and renaming it leaves is
// found by its name, and only it: a user's file that merely ends in .tmp,
// or is named like one of another tool's temporary files, is not.
func TestLeftoversAreRecognisedAndRemovedAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index")
	f, err := Create(path, 0o644)
	require.NoError(t, err)
	_, err = f.Write([]byte("half"))
	require.NoError(t, err)
	left := f.f.Name() // as a kill before Commit leaves it
	require.NoError(t, f.f.Close())
	assert.True(t, IsTemp(filepath.Base(left)), left)
	link := filepath.Join(dir, ".link.epp-build-1z9.tmp") // as Symlink names one
	require.NoError(t, os.Symlink("target", link))
	other := filepath.Join(dir, ".other.epp-build-42.tmp")
	require.NoError(t, os.WriteFile(other, nil, 0o644))
	users := []string{"notes.tmp", ".notes.tmp", ".index.123.tmp", ".index.epp-build-.tmp", ".epp-build-1.tmp",
		".index.epp-build-1.tmp.bak", "index.epp-build-1.tmp", ".index.epp-build-1!.tmp"}
	for _, name := range users {
		assert.False(t, IsTemp(name), name)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".dir.epp-build-7.tmp"), 0o755))

	removed, err := RemoveLeftoversOf(path)
	require.NoError(t, err)
	assert.Equal(t, []string{left}, removed, "only the leftovers of that path")
	removed, err = RemoveLeftovers(dir)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{link, other}, removed)

	for _, name := range users {
		assert.FileExists(t, filepath.Join(dir, name), "never a file the package did not make")
	}
	assert.DirExists(t, filepath.Join(dir, ".dir.epp-build-7.tmp"), "nor a folder")
	removed, err = RemoveLeftovers(filepath.Join(dir, "missing"))
	require.NoError(t, err)
	assert.Empty(t, removed)
}
