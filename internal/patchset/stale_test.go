package patchset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestApplyRemovesAKilledRunsStaging: the staging folder a killed cold
// apply left beside out is removed by the next apply, fresh or in place,
// which says so in one line.
func TestApplyRemovesAKilledRunsStaging(t *testing.T) {
	base := baseRepo(t, map[string]string{"a.txt": "start\n"})
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base, "rev-parse", "HEAD")}}
	out := filepath.Join(t.TempDir(), "out")
	for i, s := range [][]*Patch{appendSeries(t, base, 1), appendSeries(t, base, 2)} {
		killed, err := outdir.NewStaging(out)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(killed.Tree(), ".git"), 0o755))
		var notices []string
		opt := Options{Branch: "epp-build/v1", Notice: func(f string, a ...any) { notices = append(notices, fmt.Sprintf(f, a...)) }}
		o, err := applyPatches(context.Background(), r, s, cloneBase(t, base), out, opt)
		require.NoError(t, err)
		assert.Equal(t, i == 1, o.InPlace)
		assert.Equal(t, []string{"removed 1 staging folder(s) an interrupted apply left beside " + out}, notices)
		entries, err := os.ReadDir(filepath.Dir(out))
		require.NoError(t, err)
		assert.Len(t, entries, 1, "only --out remains")
	}
}
