package apply

import (
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGeneratingListsBasesFirstAndOnlyGeneratingVersions(t *testing.T) {
	shipped := filepath.Join("..", "..", "patches")
	recipes, err := Generating(shipped)
	require.NoError(t, err)
	versions, err := recipe.Versions(shipped)
	require.NoError(t, err)
	at := map[string]int{}
	for i, r := range recipes {
		assert.NotEmpty(t, r.Generated, r.Version)
		at[r.Version] = i
	}
	for _, v := range versions {
		r, err := recipe.LoadVersion(shipped, v)
		require.NoError(t, err)
		_, listed := at[v]
		assert.Equal(t, len(r.Generated) > 0, listed, v)
		if r.Base != nil && listed {
			assert.Less(t, at[r.Base.Version], at[v], "%s comes after its base %s", v, r.Base.Version)
		}
	}
}
