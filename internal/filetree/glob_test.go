package filetree

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGlobTakesTheFolderLiterally(t *testing.T) {
	for _, name := range []string{"br[ab]", "a*b", "q?", `back\slash`} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			require.NoError(t, os.Mkdir(dir, 0o755))
			for _, f := range []string{"0001-a.patch", "9999-unlisted.patch", "recipe.yaml"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
			}
			got, err := Glob(dir, "*.patch")
			require.NoError(t, err)
			assert.Equal(t, []string{filepath.Join(dir, "0001-a.patch"), filepath.Join(dir, "9999-unlisted.patch")}, got)
		})
	}
	got, err := Glob(filepath.Join(t.TempDir(), "missing"), "*.patch")
	assert.NoError(t, err)
	assert.Empty(t, got)
	_, err = Glob(t.TempDir(), "[")
	assert.Error(t, err, "a bad pattern is an error, as in filepath.Glob")
}
