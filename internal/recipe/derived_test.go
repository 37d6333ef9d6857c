package recipe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRebasedRecipeAsSaysWhatTheNewVersionIs rewrites a copy of v1.4.2's
// recipe as a rebase --as does: the header names the new version and
// where it came from, the old pin's mentions name the new one, and
// derived takes the place of the release the old version reproduced.
func TestRebasedRecipeAsSaysWhatTheNewVersionIs(t *testing.T) {
	old := "7c1f1994dbffb64036b0c22b8d6f7f9edb8d7c0c"
	body := `# Dynamo v1.4.2 on GAIE 7c1f1994dbff: the commit Dynamo's 1.4 line pins.
description: Dynamo v1.4.2 EPP on GAIE 7c1f1994dbff
# What this recipe stands for.
reproduces:
  release: v1.4.2
  commit: ` + dynamoCommit + `
  checked: release
upstream:
  repository: https://example.com/gaie.git
  ref: ` + old + `
  commit: ` + old + `
patches: []
`
	dir := writeRecipe(t, t.TempDir(), "v1.4.9", body)
	onto := Upstream{Repository: "https://example.com/gaie.git", Ref: "1748e829d1161147aaf35e76699ec86fd88406d2", Commit: "1748e829d1161147aaf35e76699ec86fd88406d2"}
	_, err := RebasedRecipeAs(dir, onto, nil, nil, &Derivation{Version: "v1.4.9", From: "v1.4.2"})
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "# v1.4.9: derived from v1.4.2 onto GAIE 1748e829d116 (epp-build rebase --as).\n"+
		"# v1.4.2's notes follow.\n# Dynamo v1.4.2 on GAIE 1748e829d116: the commit Dynamo's 1.4 line pins.\n"+
		"description: Dynamo v1.4.2 EPP on GAIE 1748e829d116\n"), string(got))
	assert.Contains(t, string(got), "# derived: made by `epp-build rebase --as`; it reproduces no Dynamo release of its own.\nderived: {from: v1.4.2, onto: 1748e829d116}\nupstream:\n")
	assert.NotContains(t, string(got), "reproduces:")
	assert.NotContains(t, string(got), "What this recipe stands for")

	r, err := Load(dir)
	require.NoError(t, err)
	require.NotNil(t, r.Derived)
	assert.Equal(t, Derived{From: "v1.4.2", Onto: "1748e829d116"}, *r.Derived)
	assert.Nil(t, r.Reproduces)
	assert.Equal(t, "derived from v1.4.2 onto 1748e829d116", r.Derived.String())
	assert.True(t, r.Derived.OnPin(r.Upstream))

	// Rebased again over itself, it names the pin it is on now.
	again := Upstream{Repository: onto.Repository, Ref: "v1.5.0", Commit: strings.Repeat("5", 40)}
	_, err = RebasedRecipe(dir, again, nil, nil)
	require.NoError(t, err)
	r, err = Load(dir)
	require.NoError(t, err)
	assert.Equal(t, Derived{From: "v1.4.2", Onto: "v1.5.0"}, *r.Derived)
	got, err = os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "# v1.4.9: derived from v1.4.2 onto GAIE v1.5.0 (epp-build rebase --as).\n"+
		"# v1.4.2's notes follow.\n# Dynamo v1.4.2 on GAIE 1748e829d116: the commit Dynamo's 1.4 line pins.\n"), "over itself, only the line rebase --as wrote follows the pin: %s", got)
}

// TestRebasedRecipeAsWithoutHeaderOrRelease writes the header line and
// derived for a recipe that had neither a header nor reproduces.
func TestRebasedRecipeAsWithoutHeaderOrRelease(t *testing.T) {
	dir := writeRecipe(t, t.TempDir(), "v2", pin+"patches: []\n")
	_, err := RebasedRecipeAs(dir, Upstream{Repository: "https://example.com/gaie.git", Ref: "v1.1.0", Commit: strings.Repeat("1", 40)}, nil, nil, &Derivation{Version: "v2", From: "v1"})
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "# v2: derived from v1 onto GAIE v1.1.0 (epp-build rebase --as).\nupstream:\n"), string(got))
	assert.Contains(t, string(got), "derived: {from: v1, onto: v1.1.0}\npatches: []\n")
	r, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "v1", r.Derived.From)
}

func TestDerivedProblems(t *testing.T) {
	for name, tc := range map[string]struct{ block, want string }{
		"from a path":     {"derived: {from: ../v1, onto: v1.0.0}\n", `derived.from "../v1" must name the version the series came from`},
		"from itself":     {"derived: {from: v3, onto: v1.0.0}\n", `derived.from "v3" names this version itself`},
		"no onto":         {"derived: {from: v1}\n", `derived.onto "" must name the upstream pin`},
		"onto an option":  {"derived: {from: v1, onto: --upload-pack=x}\n", `derived.onto "--upload-pack=x" must name the upstream pin`},
		"onto with space": {"derived: {from: v1, onto: 'v1 and more'}\n", `derived.onto "v1 and more" must name`},
		"and reproduces": {"derived: {from: v1, onto: v1.0.0}\nreproduces: {release: v1.4.2, commit: " + dynamoCommit + ", checked: release}\n",
			"derived and reproduces exclude each other"},
		"unknown field": {"derived: {from: v1, onto: v1.0.0, as: v3}\n", "field as not found"},
	} {
		dir := writeRecipe(t, t.TempDir(), "v3", pin+tc.block+"patches: []\n")
		_, err := Load(dir)
		var invalid *ValidationError
		require.ErrorAs(t, err, &invalid, name)
		assert.ErrorContains(t, err, tc.want, name)
	}
}
