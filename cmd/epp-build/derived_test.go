package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRebaseAsSaysWhatTheNewVersionIs rebases a version that reproduces a
// Dynamo release into a new one: the new recipe's header and derived
// block say where it came from and onto which pin, it no longer claims
// the old release, and versions and lint say so.
func TestRebaseAsSaysWhatTheNewVersionIs(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOnV1(t, u, patches, cache)
	text, err := os.ReadFile(filepath.Join(dir, "recipe.yaml"))
	require.NoError(t, err)
	head := "# Dynamo v1.4.2 on GAIE v1: the release the test reproduces.\ndescription: Dynamo v1.4.2 on GAIE v1\n" +
		"# What this recipe stands for.\nreproduces:\n  release: v1.4.2\n  commit: " + u.v1 + "\n  checked: release\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(head+string(text)), 0o644))
	r := run(t, cache, "--patches", patches, "lint", "--version", "v9")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	work := filepath.Join(t.TempDir(), "rebase")
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	r = run(t, cache, "--patches", patches, "rebase", "--skip", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	got, err := os.ReadFile(filepath.Join(patches, "v10", "recipe.yaml"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "# v10: derived from v9 onto GAIE v2 (epp-build rebase --as).\n# v9's notes follow.\n"+
		"# Dynamo v1.4.2 on GAIE v2: the release the test reproduces.\ndescription: Dynamo v1.4.2 on GAIE v2\n"), string(got))
	assert.NotContains(t, string(got), "What this recipe stands for")
	assert.Contains(t, string(got), "derived: {from: v9, onto: v2}\n")
	assert.NotContains(t, string(got), "reproduces:")
	assert.NotContains(t, string(got), "release: v1.4.2")

	r = run(t, cache, "--patches", patches, "versions")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `(?m)^v10\s+derived from v9 onto v2\s+-\s`, r.stdout)
	assert.Regexp(t, `(?m)^v9\s+v1\.4\.2\s+release `, r.stdout)
	r = run(t, cache, "--patches", patches, "versions", "-o", "json")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, `"derived": {`)
	assert.Contains(t, r.stdout, `"from": "v9"`)

	r = run(t, cache, "--patches", patches, "lint", "--version", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "notice: v10: derived from v9 onto v2: a rebase made it, and it reproduces no Dynamo release of its own")
	assert.NotContains(t, r.stderr, "reproduces v1.4.2")

	// A derived block left naming another pin is a lint problem.
	require.NoError(t, os.WriteFile(filepath.Join(patches, "v10", "recipe.yaml"), []byte(strings.Replace(string(got), "onto: v2}", "onto: v1}", 1)), 0o644))
	r = run(t, cache, "--patches", patches, "lint", "--version", "v10")
	assert.Equal(t, 7, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "v10: derived.onto v1 is not the recipe's upstream pin v2: set it to v2")
}
