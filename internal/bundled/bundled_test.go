package bundled

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func series() fstest.MapFS {
	return fstest.MapFS{
		"patches/v1/recipe.yaml":       {Data: []byte("patches: []\n")},
		"patches/v1/0001-a.patch":      {Data: []byte("diff\n")},
		"patches/v1/capi/0001-b.patch": {Data: []byte("capi\n")},
		"patches/v2/recipe.yaml":       {Data: []byte("extends: v1\n")},
	}
}

func TestExtractWritesTheSeriesByItsDigest(t *testing.T) {
	fsys := series()
	cache := t.TempDir()
	c, err := extract(fsys, cache)
	require.NoError(t, err)
	assert.False(t, c.Repaired)
	data, err := os.ReadFile(filepath.Join(c.Dir, "v1", "capi", "0001-b.patch"))
	require.NoError(t, err)
	assert.Equal(t, "capi\n", string(data))

	again, err := extract(fsys, cache)
	require.NoError(t, err)
	assert.Equal(t, c, again, "an intact copy is used as it is")

	// Another series, another folder.
	fsys["patches/v2/recipe.yaml"] = &fstest.MapFile{Data: []byte("extends: v1 # changed\n")}
	other, err := extract(fsys, cache)
	require.NoError(t, err)
	assert.NotEqual(t, c.Dir, other.Dir)
}

// Issue 36: the copy in the cache is checked on every use. A line planted
// in a patch, a file added beside the series, a file removed or a copy
// left half-written is written again from the binary, and said so.
func TestExtractRewritesAChangedCopy(t *testing.T) {
	for name, change := range map[string]func(t *testing.T, dir string){
		"planted line": func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, "v1", "0001-a.patch"), os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteString("+++ b/BACKDOOR.txt\n")
			require.NoError(t, err)
			require.NoError(t, f.Close())
		},
		"added file": func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "v1", "0002-backdoor.patch"), []byte("x"), 0o644))
		},
		"removed file": func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "v1", "recipe.yaml")))
		},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := series()
			cache := t.TempDir()
			c, err := extract(fsys, cache)
			require.NoError(t, err)
			change(t, c.Dir)

			again, err := extract(fsys, cache)
			require.NoError(t, err)
			assert.True(t, again.Repaired)
			assert.Equal(t, c.Dir, again.Dir)
			assert.True(t, intact(again))
			assert.NoFileExists(t, filepath.Join(c.Dir, "v1", "0002-backdoor.patch"))
			data, err := os.ReadFile(filepath.Join(c.Dir, "v1", "0001-a.patch"))
			require.NoError(t, err)
			assert.Equal(t, "diff\n", string(data))
			entries, err := os.ReadDir(filepath.Dir(filepath.Dir(c.Dir)))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no staging or replaced folder is left beside the copy")

			third, err := extract(fsys, cache)
			require.NoError(t, err)
			assert.False(t, third.Repaired, "once written again, the copy is used")
		})
	}
}

// A folder's digest is the embedded one's measure: the repository's
// patches/ is the series this binary carries.
func TestTheEmbeddedSeriesIsTheRepositorys(t *testing.T) {
	c, err := Extract(t.TempDir())
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("..", "..", "patches", "v0.7.0", "recipe.yaml"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(c.Dir, "v0.7.0", "recipe.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	repo, err := FolderDigest(filepath.Join("..", "..", "patches"))
	require.NoError(t, err)
	assert.Equal(t, c.Digest, repo)
	assert.Contains(t, Versions(), "v0.7.0")
}
