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
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

const upstreamModule = "example.com/upstream"

// pluginSource writes a module of this repository's kind: two plugin
// packages, one importing the other by this module's path.
func pluginSource(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{
		"go.mod":               "module example.com/mine\n\ngo 1.22\n",
		"plugins/a/a.go":       "package a\n\nimport \"example.com/mine/plugins/b\"\n\nvar X = b.Y\n",
		"plugins/a/a_test.go":  "package a\n",
		"plugins/b/b.go":       "package b\n\nconst Y = 1\n",
		"plugins/b/sub/nested": "not copied: a subfolder\n",
	}
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// generatedSeries makes an upstream and a recipe whose one patch adds the
// two plugin folders, as committed before the plugin source changed: a
// still imports the plugin by its path in this repository.
func generatedSeries(t *testing.T) *recipe.Recipe {
	t.Helper()
	root := t.TempDir()
	pluginSource(t, filepath.Join(root, "src"))
	up := gitfixture.New(t)
	base := up.Commit(t, "upstream", map[string]string{"go.mod": "module " + upstreamModule + "\n\ngo 1.22\n"})
	up.Tag(t, "v1.0.0", base, true)
	up.Commit(t, "Add the plugins", map[string]string{
		"pkg/plugins/a/a.go": "package a\n\nimport \"example.com/mine/plugins/b\"\n\nvar X = b.Y\n",
		"pkg/plugins/b/b.go": "package b\n\nconst Y = 1\n",
	})
	dir := filepath.Join(root, "recipes", "v1.0.0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	up.Git(t, "format-patch", "--quiet", "-1", "--zero-commit", "--keep-subject", "--no-stat", "--no-signature", "--full-index", "-o", dir, "HEAD")
	yaml := fmt.Sprintf(`upstream:
  repository: %s
  ref: v1.0.0
  commit: %s
  module: %s
  moduleVersion: v1.0.0
  moduleHash: %s
patches:
  - 0001-Add-the-plugins.patch
generated:
  - patch: 0001-Add-the-plugins.patch
    from: ../../src/plugins/a
    to: pkg/plugins/a
    exclude: ["*_test.go"]
  - patch: 0001-Add-the-plugins.patch
    from: ../../src/plugins/b
    to: pkg/plugins/b
`, up.FileURL(), base, upstreamModule, moduleHash(t, up.Dir, base))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(yaml), 0o644))
	r, err := recipe.Load(dir)
	require.NoError(t, err)
	return r
}

// moduleHash is the h1: hash the go command gives upstreamModule@v1.0.0
// made from commit (a fetch checks the recipe's hash against it).
func moduleHash(t *testing.T, repoDir, commit string) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, modzip.CreateFromVCS(&buf, module.Version{Path: upstreamModule, Version: "v1.0.0"}, repoDir, commit, ""))
	zipPath := filepath.Join(t.TempDir(), "m.zip")
	require.NoError(t, os.WriteFile(zipPath, buf.Bytes(), 0o644))
	h, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	require.NoError(t, err)
	return h
}

func regenOptions(t *testing.T) Options {
	return Options{Fetcher: Fetcher{Kind: source.Git, CacheDir: t.TempDir()}}
}

func TestOverlaysRewriteImportsOfGeneratedFolders(t *testing.T) {
	r := generatedSeries(t)
	ov, err := overlays(r)
	require.NoError(t, err)
	folders := ov["0001-Add-the-plugins.patch"]
	require.Len(t, folders, 2)
	assert.Equal(t, "pkg/plugins/a", folders[0].Dir)
	a := folders[0].Files
	require.Contains(t, a, "a.go")
	assert.Contains(t, string(a["a.go"].Data), `import "`+upstreamModule+`/pkg/plugins/b"`)
	assert.NotContains(t, a, "a_test.go", "excluded")
	assert.NotContains(t, folders[1].Files, "sub", "subfolders are not copied")
	assert.NotContains(t, folders[1].Files, "go.mod")
}

func TestOverlaysNeedTheUpstreamModule(t *testing.T) {
	r := generatedSeries(t)
	r.Upstream.Module = ""
	_, err := overlays(r)
	require.EqualError(t, err, "recipe v1.0.0: generated packages need upstream.module (the import path prefix inside the upstream tree)")

	r.Generated = nil
	ov, err := overlays(r)
	require.NoError(t, err, "without generated packages the module is not needed")
	assert.Nil(t, ov)
}

func TestOverlaysNameAFolderOutsideAModule(t *testing.T) {
	r := generatedSeries(t)
	r.Generated[1].FromDir = t.TempDir()
	_, err := overlays(r)
	require.ErrorContains(t, err, "recipe v1.0.0: generated[1] from ../../src/plugins/b: not inside a Go module")
}

func TestRegenFindsAndRewritesTheStalePatch(t *testing.T) {
	r := generatedSeries(t)
	ctx := context.Background()
	patchFile := r.Series[0].Path
	before, err := os.ReadFile(patchFile)
	require.NoError(t, err)

	_, err = Check(ctx, r, regenOptions(t))
	var stale *StaleError
	require.ErrorAs(t, err, &stale)
	require.Len(t, stale.Stale, 1)
	assert.Equal(t, "0001-Add-the-plugins.patch", stale.Stale[0].Patch)
	assert.Contains(t, err.Error(), "v1.0.0: 1 stale patch(es):")
	assert.Contains(t, err.Error(), "fix: epp-build regen --recipe "+r.Dir)
	unchanged, err := os.ReadFile(patchFile)
	require.NoError(t, err)
	assert.Equal(t, before, unchanged, "check writes nothing")

	g, err := Regen(ctx, r, regenOptions(t))
	require.NoError(t, err)
	assert.Len(t, g.Stale, 1)
	after, err := os.ReadFile(patchFile)
	require.NoError(t, err)
	assert.Contains(t, string(after), `+import "`+upstreamModule+`/pkg/plugins/b"`)

	r, err = recipe.Load(r.Dir)
	require.NoError(t, err)
	g, err = Check(ctx, r, regenOptions(t))
	require.NoError(t, err, "a regenerated series is up to date")
	assert.Empty(t, g.Stale)
	assert.Len(t, g.Patches, 1)
}

func TestRunRegeneratesThenAppliesTheRewrittenSeries(t *testing.T) {
	r := generatedSeries(t)
	out := filepath.Join(t.TempDir(), "tree")
	res, err := Run(context.Background(), r, out, true, regenOptions(t))
	require.NoError(t, err)
	require.NotNil(t, res.Regenerated)
	assert.Len(t, res.Regenerated.Stale, 1)
	assert.NotSame(t, r, res.Recipe, "the recipe with the rewritten series")
	got, err := os.ReadFile(filepath.Join(out, "pkg", "plugins", "a", "a.go"))
	require.NoError(t, err)
	assert.Contains(t, string(got), upstreamModule+"/pkg/plugins/b")
}

func TestOverlaysOfOneFolderMerge(t *testing.T) {
	r := generatedSeries(t)
	// A line-specific folder gives b.go's replacement; the shared one
	// excludes it.
	lineDir := filepath.Join(filepath.Dir(r.Generated[1].FromDir), "lines", "b")
	require.NoError(t, os.MkdirAll(lineDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lineDir, "b.go"), []byte("package b\n\nconst Y = 2\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(r.Generated[1].FromDir, "c.go"), []byte("package b\n\nconst Z = Y\n"), 0o644))
	r.Generated[1].Exclude = []string{"b.go"}
	r.Generated = append(r.Generated, recipe.Package{Patch: r.Generated[1].Patch, From: "lines/b", To: "pkg/plugins/b/", FromDir: lineDir})

	ov, err := overlays(r)
	require.NoError(t, err)
	folders := ov["0001-Add-the-plugins.patch"]
	require.Len(t, folders, 2, "one overlay per folder")
	b := folders[1]
	assert.Equal(t, "pkg/plugins/b", b.Dir)
	require.Contains(t, b.Files, "b.go")
	assert.Equal(t, "package b\n\nconst Y = 2\n", string(b.Files["b.go"].Data), "the line's file")
	assert.Contains(t, b.Files, "c.go", "the shared files")

	r.Generated[1].Exclude = nil
	_, err = overlays(r)
	require.ErrorContains(t, err, "generated[1] and generated[2] both give pkg/plugins/b/b.go (exclude it from one)")
}
