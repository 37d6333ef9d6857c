package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// CopyRecipeSet copies the patches/ of the repository at repoRoot into a
// temporary folder a test may write, and returns the copy's patches
// folder. The recipes' generated patches name their sources (ffi/,
// plugins/) relative to patches/: the copy carries the tracked files of
// all three.
func CopyRecipeSet(t testing.TB, repoRoot string) string {
	t.Helper()
	root := t.TempDir()
	tracked, err := exec.Command("git", "-C", repoRoot, "ls-files", "-z", "patches", "ffi", "plugins").Output()
	require.NoError(t, err)
	for _, name := range strings.Split(strings.TrimRight(string(tracked), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(repoRoot, name))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), data, 0o644))
	}
	return filepath.Join(root, "patches")
}
