package recipe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every recipe this repository ships says which Dynamo release it stands
// for, and that is the release its folder is named after: a version name
// promises a release, and the block says how far the promise was checked.
func TestEveryShippedRecipeSaysWhatItReproduces(t *testing.T) {
	root := filepath.Join("..", "..", "patches")
	versions, err := Versions(root)
	require.NoError(t, err)
	require.NotEmpty(t, versions)
	for _, v := range versions {
		r, err := LoadVersion(root, v)
		require.NoError(t, err, v)
		if assert.NotNil(t, r.Reproduces, "%s has no reproduces block", v) {
			assert.Equal(t, v, r.Reproduces.Release, "%s names the release it reproduces", v)
		}
	}
}

// Each shipped recipe's compatibility table says at its top what it
// reproduces and whether it was checked at the release, as the recipe does.
func TestEveryCompatibilityTableSaysWhatItReproduces(t *testing.T) {
	root := filepath.Join("..", "..", "patches")
	versions, err := Versions(root)
	require.NoError(t, err)
	for _, v := range versions {
		r, err := LoadVersion(root, v)
		require.NoError(t, err, v)
		require.NotNil(t, r.Reproduces, v)
		data, err := os.ReadFile(filepath.Join("..", "..", "docs", "compat", v+".md"))
		require.NoError(t, err, "%s needs a compatibility table", v)
		var top []string
		for _, line := range strings.Split(string(data), "\n")[1:] {
			if line != "" && !strings.HasPrefix(line, ">") {
				break
			}
			top = append(top, line)
		}
		head := strings.Join(top, " ")
		assert.Contains(t, head, "**Reproduces:** Dynamo "+r.Reproduces.Release, v)
		assert.Contains(t, head, r.Reproduces.Commit, v)
		if r.Reproduces.AtRelease() {
			assert.Contains(t, head, "**checked at the release**", v)
		} else {
			assert.Contains(t, head, "**not checked at the release**", v)
		}
	}
}
