package recipe

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolchainIsLoadedAndInherited(t *testing.T) {
	root := t.TempDir()
	writeRecipe(t, root, "v1", pin+"toolchain: go1.26.10\npatches: []\n")
	writeRecipe(t, root, "v2", "extends: v1\npatches: []\n")
	writeRecipe(t, root, "v3", "extends: v1\ntoolchain: go1.27.3\npatches: []\n")

	for version, want := range map[string]string{"v1": "go1.26.10", "v2": "go1.26.10", "v3": "go1.27.3"} {
		r, err := LoadVersion(root, version)
		require.NoError(t, err, version)
		assert.Equal(t, want, r.Toolchain, version)
	}
}

func TestToolchainMustBeAGoRelease(t *testing.T) {
	for _, bad := range []string{"go1.21", "1.26.10", "go1.26.10rc1", "go1.27rc1", "go1.26.x", "go1.26.10 ", "--version", "go1.20.14", "go2.0.0"} {
		t.Run(bad, func(t *testing.T) {
			dir := writeRecipe(t, t.TempDir(), "v1", pin+"toolchain: \""+bad+"\"\npatches: []\n")
			_, err := Load(dir)
			var v *ValidationError
			require.ErrorAs(t, err, &v)
			assert.Contains(t, err.Error(), filepath.Join(dir, FileName), "the error names the file")
			assert.Contains(t, err.Error(), `toolchain "`+bad+`"`, "the error names the field and its value")
		})
	}
	for _, good := range []string{"go1.21.0", "go1.26.10", "go1.27.3"} {
		assert.NoError(t, CheckToolchain(good), good)
	}
}

func TestSetToolchainKeepsCommentsAndOrder(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v1", `# the v1 line
description: first # why
upstream:
  # the pin
  repository: https://example.com/gaie.git
  ref: v1.0.0
  commit: 978c23bb96cce25f11cea2421523cb479026e2e9
patches: [] # none yet
`)
	require.NoError(t, SetToolchain(dir, "go1.26.10"))
	got, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Equal(t, `# the v1 line
description: first # why
upstream:
  # the pin
  repository: https://example.com/gaie.git
  ref: v1.0.0
  commit: 978c23bb96cce25f11cea2421523cb479026e2e9
toolchain: go1.26.10
patches: [] # none yet
`, string(got))

	// A second move replaces the value where it stands, with its comment.
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(pin+"toolchain: go1.26.10 # GO-2026-4601\npatches: []\n"), 0o644))
	require.NoError(t, SetToolchain(dir, "go1.27.3"))
	r, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "go1.27.3", r.Toolchain)
	got, err = os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Contains(t, string(got), "toolchain: go1.27.3 # GO-2026-4601\n")
}

func TestSetToolchainRefusesWhatLoadWouldRefuse(t *testing.T) {
	body := pin + "patches: []\n"
	dir := writeRecipe(t, t.TempDir(), "v1", body)
	err := SetToolchain(dir, "go1.27")
	var v *ValidationError
	require.ErrorAs(t, err, &v)
	assert.Contains(t, err.Error(), `toolchain "go1.27"`)
	got, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Equal(t, body, string(got), "a refused toolchain leaves the recipe as it was")
}

func TestRebasedCopiesTheInheritedToolchain(t *testing.T) {
	root := t.TempDir()
	writeRecipe(t, root, "v1", pin+"toolchain: go1.26.10\npatches: []\n")
	dir := writeRecipe(t, root, "v2", "extends: v1\npatches: []\n")
	u := Upstream{Repository: "https://example.com/gaie.git", Ref: "v2.0.0", Commit: "1748e829d116c3a4a8b2a4b7d5b7b9a0c1d2e3f4"}
	_, err := Rebased(dir, u, nil, nil)
	require.NoError(t, err)
	r, err := Load(dir)
	require.NoError(t, err)
	assert.Nil(t, r.Base, "the rebased recipe stands on its own")
	assert.Equal(t, "go1.26.10", r.Toolchain)
}
