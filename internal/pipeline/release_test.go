package pipeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/recipe"
)

// TestReleaseRefusesBadOptionsBeforeApplying: a recipe whose upstream
// cannot be fetched is never loaded nor reached when the options cannot
// work.
func TestReleaseRefusesBadOptionsBeforeApplying(t *testing.T) {
	r := &recipe.Recipe{Version: "v0.0.0", Upstream: recipe.Upstream{Repository: filepath.Join(t.TempDir(), "missing")}}
	cache := t.TempDir()
	loaded := 0
	job := Job{Load: func(string) (*recipe.Recipe, error) { loaded++; return r, nil },
		Apply: apply.Options{Fetcher: apply.Fetcher{CacheDir: cache}}}

	_, err := Build(context.Background(), job)
	require.ErrorIs(t, err, platform.ErrNone)

	job.Options.Platforms = platforms(t, "linux/amd64")
	_, err = Build(context.Background(), job)
	var oe *OptionsError
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "nothing to export")
	assert.Zero(t, loaded, "no recipe loaded")
	assert.NoDirExists(t, filepath.Join(cache, "trees"), "nothing applied")
}
