package atomicfile

import (
	"os"
	"path/filepath"
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
