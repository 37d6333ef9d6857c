package apply

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// seriesOn makes an upstream with a tag and a one-patch recipe on it.
func seriesOn(t *testing.T) (*recipe.Recipe, *gitfixture.Repo) {
	t.Helper()
	up := gitfixture.New(t)
	base := up.Commit(t, "upstream", map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	up.Tag(t, "v1.0.0", base, true)
	up.Commit(t, "Add a plugin", map[string]string{"plugin.go": "package main\n\n// plugin\n"})
	dir := filepath.Join(t.TempDir(), "v1.0.0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	up.Git(t, "format-patch", "--quiet", "-1", "-o", dir, "HEAD")
	yaml := fmt.Sprintf("upstream:\n  repository: %s\n  ref: v1.0.0\n  commit: %s\npatches:\n  - 0001-Add-a-plugin.patch\n", up.FileURL(), base)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(yaml), 0o644))
	r, err := recipe.Load(dir)
	require.NoError(t, err)
	return r, up
}

func TestRecipeFetchesAppliesAndReportsEachPatch(t *testing.T) {
	r, _ := seriesOn(t)
	var log bytes.Buffer
	opt := Options{
		Fetcher:    Fetcher{Kind: source.Git, CacheDir: t.TempDir(), Progress: progress.New(&log, progress.Plain)},
		PatchLines: true,
	}
	out := filepath.Join(t.TempDir(), "tree")
	res, err := Recipe(context.Background(), r, out, opt)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(out, "plugin.go"))
	require.NoError(t, err)
	assert.Equal(t, "package main\n\n// plugin\n", string(got))
	require.Len(t, res.Record.Patches, 1)
	assert.Contains(t, log.String(), "[1/1] 0001-Add-a-plugin.patch")
	assert.Contains(t, log.String(), "check out "+gitformat.Short(res.Record.UpstreamCommit))

	// Without PatchLines the same apply prints no per-patch line.
	log.Reset()
	opt.PatchLines = false
	_, err = Recipe(context.Background(), r, filepath.Join(t.TempDir(), "again"), opt)
	require.NoError(t, err)
	assert.NotContains(t, log.String(), "[1/1]")
}

func TestRecipeNamesAnUpstreamThatCannotBeFetched(t *testing.T) {
	r, _ := seriesOn(t)
	missing := filepath.Join(t.TempDir(), "gone.git")
	opt := Options{Fetcher: Fetcher{Kind: source.Git, Upstream: missing, CacheDir: t.TempDir()}}
	out := filepath.Join(t.TempDir(), "tree")
	_, err := Recipe(context.Background(), r, out, opt)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gone.git")
	assert.NoDirExists(t, out, "nothing half-written")
}
