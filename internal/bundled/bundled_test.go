package bundled

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExtractWritesTheSeriesOnceByItsDigest(t *testing.T) {
	fsys := fstest.MapFS{
		"patches/v1/recipe.yaml":       {Data: []byte("patches: []\n")},
		"patches/v1/0001-a.patch":      {Data: []byte("diff\n")},
		"patches/v1/capi/0001-b.patch": {Data: []byte("capi\n")},
		"patches/v2/recipe.yaml":       {Data: []byte("extends: v1\n")},
	}
	cache := t.TempDir()
	dir, err := extract(fsys, cache)
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, "v1", "capi", "0001-b.patch"))
	require.NoError(t, err)
	assert.Equal(t, "capi\n", string(data))

	// Found again, not rewritten: a file changed by hand stays changed.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "v2", "recipe.yaml"), []byte("x"), 0o644))
	again, err := extract(fsys, cache)
	require.NoError(t, err)
	assert.Equal(t, dir, again)

	// Another series, another folder.
	fsys["patches/v2/recipe.yaml"] = &fstest.MapFile{Data: []byte("extends: v1 # changed\n")}
	other, err := extract(fsys, cache)
	require.NoError(t, err)
	assert.NotEqual(t, dir, other)
}

// A folder left without the completion mark (a hand-made or broken copy)
// is replaced, not trusted.
func TestExtractReplacesAnIncompleteCopy(t *testing.T) {
	fsys := fstest.MapFS{"patches/v1/recipe.yaml": {Data: []byte("patches: []\n")}}
	cache := t.TempDir()
	dir, err := extract(fsys, cache)
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(filepath.Dir(dir), ".complete")))
	require.NoError(t, os.Remove(filepath.Join(dir, "v1", "recipe.yaml")))
	again, err := extract(fsys, cache)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(again, "v1", "recipe.yaml"))
}

// The binary's own series is the repository's patches/.
func TestTheEmbeddedSeriesIsTheRepositorys(t *testing.T) {
	dir, err := Extract(t.TempDir())
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("..", "..", "patches", "v0.7.0", "recipe.yaml"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "v0.7.0", "recipe.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}
