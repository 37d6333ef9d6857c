package apply

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
)

// apply --regen hands the regenerated series to the apply in memory: the
// recipe and the series it applied are what reading the rewritten folder
// gives, and the apply record names the regenerated patches' digests.
func TestRegenHandsTheSeriesOnInMemory(t *testing.T) {
	r := generatedSeries(t)
	out := filepath.Join(t.TempDir(), "tree")
	res, err := Run(context.Background(), r, out, true, regenOptions(t))
	require.NoError(t, err)

	reread, err := recipe.Load(r.Dir)
	require.NoError(t, err)
	assert.Equal(t, reread.Patches, res.Recipe.Patches)
	assert.Equal(t, reread.Series, res.Recipe.Series)
	loaded, err := patchset.LoadSeries(reread)
	require.NoError(t, err)
	require.Len(t, res.Outcome.Record.Patches, loaded.Len())
	for i, p := range loaded.Patches() {
		assert.Equal(t, p.SHA256, res.Outcome.Record.Patches[i].SHA256, p.Name())
		assert.Equal(t, p.File, res.Outcome.Record.Patches[i].File)
	}
}
