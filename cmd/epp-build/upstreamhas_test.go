package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRebaseDropsAPickUpstreamAlreadyHas picks v2's fix of c onto a series
// on v1 with the fix's commit URL as Upstream:, then rebases onto v2: the
// pick is dropped before the replay, and the rebase says why.
func TestRebaseDropsAPickUpstreamAlreadyHas(t *testing.T) {
	u := newTwoPins(t)
	u.repo.AllowFetchBySHA(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
		{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"},
	})
	clone := filepath.Join(t.TempDir(), "clone")
	gitfixture.Git(t, filepath.Dir(clone), "clone", "-q", u.repo.Dir, clone)
	gitfixture.Git(t, clone, "checkout", "-q", u.v1)
	data, err := os.ReadFile(filepath.Join(clone, "c.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(clone, "c.txt"), []byte(strings.Replace(string(data), "c 3 line\n", "c 3 fixed line\n", 1)), 0o644))
	gitfixture.Git(t, clone, "commit", "-q", "-am", "Fix c\n\nThe backport of upstream's fix.")
	r := run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", clone, "--reason", "c is broken on v1",
		"--upstream-link", "https://example.com/gaie/commit/"+u.v2, "HEAD")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", filepath.Join(t.TempDir(), "rebase"))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "0003-Fix-c.patch: already upstream: its Upstream: commit "+u.v2[:12]+" is in "+u.v2[:12]+"; dropped")
	assert.Contains(t, r.stdout, "0003-Fix-c.patch")
	text, err := os.ReadFile(filepath.Join(patches, "v10", "recipe.yaml"))
	require.NoError(t, err)
	assert.NotContains(t, string(text), "Fix-c")
	r = run(t, cache, "--patches", patches, "check", "--version", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	// diff-series names both pins and the upstream commit between them
	// that touches patched files.
	r = run(t, cache, "--patches", patches, "diff-series", "v9", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "upstream: v1 ("+u.v1[:12]+") -> v2 ("+u.v2[:12]+")\n")
	assert.Contains(t, r.stdout, "  1 upstream commit(s) between them touch patched files\n    "+u.v2[:12]+" v2\n")
	r = run(t, cache, "--patches", patches, "diff-series", "v9", "v10", "--no-history")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.NotContains(t, r.stdout, "upstream commit(s)")

	// log --since: the release notes of v10 since v9.
	r = run(t, cache, "--patches", patches, "log", "--version", "v10", "--since", "v9", "-o", "markdown")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	for _, want := range []string{
		"## v10 since v9\n",
		"| GAIE upstream | `v1 (" + u.v1[:12] + ")` | `v2 (" + u.v2[:12] + ")` |\n",
		"- `" + u.v2[:12] + "` v2\n",
		"| dropped | Fix c | `0003-Fix-c.patch` | <https://example.com/gaie/commit/" + u.v2 + "> | c is broken on v1 |\n",
		"| changed | Route a | `0001-Route-a.patch` | - | test |\n",
		"1 patch(es) carried unchanged, 0 moved with the upstream.\n",
	} {
		assert.Contains(t, r.stdout, want)
	}
	r = run(t, cache, "--patches", patches, "log", "--version", "v10", "--since", "v9", "-o", "json", "--no-history")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var notes map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &notes))
	assert.Equal(t, "v9", notes["since"])
	assert.Len(t, notes["patches"], 2)
	r = run(t, cache, "--patches", patches, "log", "--since", "v9")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
}
