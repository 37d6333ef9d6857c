package recipe

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pin = `upstream:
  repository: https://example.com/gaie.git
  ref: v1.0.0
  commit: 978c23bb96cce25f11cea2421523cb479026e2e9
`

func writeRecipe(t *testing.T, root, version, body string, patches ...string) string {
	dir := filepath.Join(root, version)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o644))
	for _, p := range patches {
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte("patch"), 0o644))
	}
	return dir
}

func TestValidateListsEveryProblem(t *testing.T) {
	root := t.TempDir()
	dir := writeRecipe(t, root, "v1", `upstream:
  repository: https://example.com/gaie.git
  commit: 978c23bb
  moduleHash: sha256:nope
patches:
  - ../escape.patch
  - missing.patch
  - ok.patch
  - ok.patch
`, "ok.patch", "stray.patch")
	_, err := Load(dir)
	var v *ValidationError
	require.ErrorAs(t, err, &v)
	for _, want := range []string{
		"upstream.ref is missing",
		`upstream.commit "978c23bb" must be the full 40-hex-digit commit`,
		"upstream.module, upstream.moduleVersion and upstream.moduleHash go together",
		`upstream.moduleHash "sha256:nope" is not an h1: hash`,
		`patches[0] "../escape.patch" must be a plain file name`,
		`patches[1] "missing.patch" is listed but there is no such file`,
		`patches[3] "ok.patch" is listed twice`,
		"stray.patch is in the folder but not in the patches list",
	} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestUnknownFieldIsAnError(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v1", pin+"patchez: []\n")
	_, err := Load(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "patchez")
}

func TestExtendsInheritsPinAndSeries(t *testing.T) {
	root := t.TempDir()
	writeRecipe(t, root, "v1.4.1", pin+"patches:\n  - 0001-base.patch\n  - 0002-base.patch\n", "0001-base.patch", "0002-base.patch")
	dir := writeRecipe(t, root, "v1.4.2", "extends: v1.4.1\npatches:\n  - 0003-pick.patch\n", "0003-pick.patch")
	r, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "978c23bb96cce25f11cea2421523cb479026e2e9", r.Upstream.Commit, "the pin is inherited")
	require.Len(t, r.Series, 3)
	assert.Equal(t, 2, r.Inherited())
	assert.Equal(t, "v1.4.1", r.Series[0].Version)
	assert.Equal(t, filepath.Join(root, "v1.4.1", "0001-base.patch"), r.Series[0].Path)
	assert.Equal(t, "v1.4.2", r.Series[2].Version)

	clash := writeRecipe(t, root, "v1.4.3", "extends: v1.4.1\npatches:\n  - 0001-base.patch\n", "0001-base.patch")
	_, err = Load(clash)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"0001-base.patch" is already in the series of v1.4.1`)

	loop := writeRecipe(t, root, "va", "extends: vb\npatches: []\n")
	writeRecipe(t, root, "vb", "extends: va\npatches: []\n")
	_, err = Load(loop)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "extends itself")
}

func TestSetPatchesKeepsComments(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v1", "# why this version exists\n"+pin+"patches: []\n")
	require.NoError(t, SetPatches(dir, []string{"0001-a.patch", "0002-b.patch"}))
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Contains(t, string(data), "# why this version exists")
	assert.Contains(t, string(data), "patches:\n  - 0001-a.patch\n  - 0002-b.patch\n")
}

const capiPin = `capi:
  repository: https://github.com/ai-dynamo/dynamo.git
  ref: v1.4.0
  commit: e147ceeac0563354f530b9624d0fc90ccfa6952a
  dir: lib/bindings/c
  crate: libdynamo_llm
  library: dynamo_llm_capi
  generation: routers
`

func TestCAPIPatchesResolveAgainstTheDeclaringRecipe(t *testing.T) {
	root := t.TempDir()
	base := writeRecipe(t, root, "v1", pin+capiPin+"  patches: [capi/0001-backport.patch]\npatches: []\n")
	require.NoError(t, os.MkdirAll(filepath.Join(base, "capi"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(base, "capi", "0001-backport.patch"), []byte("patch"), 0o644))
	child := writeRecipe(t, root, "v2", "extends: v1\npatches: []\n")

	r, err := Load(child)
	require.NoError(t, err)
	require.NotNil(t, r.CAPI)
	assert.Equal(t, []string{filepath.Join(base, "capi", "0001-backport.patch")}, r.CAPI.PatchPaths,
		"an inherited C API series stays in the folder of the recipe that declares it")
}

func TestCAPIPatchesAreChecked(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v1", pin+capiPin+"  patches: [../escape.patch, capi/missing.patch, notes.txt]\npatches: []\n")
	_, err := Load(dir)
	var v *ValidationError
	require.ErrorAs(t, err, &v)
	msg := err.Error()
	assert.Contains(t, msg, `capi.patches[0] "../escape.patch" must be a .patch file inside the recipe folder`)
	assert.Contains(t, msg, `capi.patches[1] "capi/missing.patch":`)
	assert.Contains(t, msg, `capi.patches[2] "notes.txt" must be a .patch file inside the recipe folder`)
}

func TestUnlistedPatchIsFoundUnderAGlobLikeFolder(t *testing.T) {
	root := filepath.Join(t.TempDir(), "br[ab]", "patches")
	dir := writeRecipe(t, root, "v1", pin+"patches:\n  - 0001-a.patch\n", "0001-a.patch", "9999-unlisted.patch")
	_, err := Load(dir)
	var v *ValidationError
	require.ErrorAs(t, err, &v)
	assert.Contains(t, err.Error(), "9999-unlisted.patch is in the folder but not in the patches list")
}

func TestASeriesPastTheLimitIsRefused(t *testing.T) {
	root := t.TempDir()
	list := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "  - %05d-p.patch\n", i+1)
		}
		return b.String()
	}
	// The patch files are left out: the count is refused whatever they hold.
	_, err := Load(writeRecipe(t, root, "v1", pin+"patches:\n"+list(MaxSeriesPatches+1)))
	var v *ValidationError
	require.ErrorAs(t, err, &v)
	assert.Contains(t, err.Error(), fmt.Sprintf("the series has %d patches, over the %d a series may have", MaxSeriesPatches+1, MaxSeriesPatches))

	_, err = Load(writeRecipe(t, root, "v2", pin+"patches:\n"+list(MaxSeriesPatches)))
	require.ErrorAs(t, err, &v, "the missing files are still problems")
	assert.NotContains(t, err.Error(), "a series may have", "a series at the limit is not refused for its length")
}
