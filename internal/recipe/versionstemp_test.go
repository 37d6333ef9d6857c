package recipe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVersionsSkipsAWritersFolderBesideAVersion: the copy a series edit
// builds beside a version (or a killed one left) holds a recipe too, and
// is no version.
func TestVersionsSkipsAWritersFolderBesideAVersion(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"v1", ".epp-build-v1.new-123", ".v2.rebase-9"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, d, FileName), []byte("patches: []\n"), 0o644))
	}
	got, err := Versions(root)
	require.NoError(t, err)
	assert.Equal(t, []string{"v1"}, got)
}
