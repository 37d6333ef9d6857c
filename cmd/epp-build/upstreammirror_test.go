package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// deadUpstream is the repository the recipes of TestHistoryFromAMirror
// name: a closed loopback port, so that any read of it fails at once and
// only the mirror can answer.
const deadUpstream = "http://127.0.0.1:1/gaie.git"

// TestHistoryFromAMirror: log --since and diff-series read the upstream
// commits between two pins from --upstream (a loopback git server) or
// EPP_BUILD_UPSTREAM (a local bare mirror), never from the recipes'
// repository, which cannot be reached.
func TestHistoryFromAMirror(t *testing.T) {
	testenv.Tool(t, "git", "the upstream history is read with the git CLI")
	u := newTwoPins(t)
	u.repo.AllowFetchBySHA(t)
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, t.TempDir(), "v9", []edit{{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"}})
	seriesOn(t, u.url, u.v1, patches, t.TempDir(), "v10", []edit{{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"}})
	for _, v := range []string{"v9", "v10"} {
		path := filepath.Join(patches, v, "recipe.yaml")
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		text := strings.Replace(string(data), u.url, deadUpstream, 1)
		if v == "v10" {
			text = strings.Replace(strings.Replace(text, u.v1, u.v2, 1), "ref: v1\n", "ref: v2\n", 1)
		}
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	mirror := filepath.Join(t.TempDir(), "gaie.git")
	gitfixture.Git(t, filepath.Dir(mirror), "clone", "-q", "--mirror", u.repo.Dir, mirror)
	between := "  1 upstream commit(s) between them touch patched files\n    " + u.v2[:12] + " v2\n"
	sinceLine := u.v2[:12] + " v2"

	// Without a mirror the history cannot be read: the recipes' repository
	// is dead, which is what the rest relies on.
	r := run(t, t.TempDir(), "--patches", patches, "diff-series", "v9", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "upstream commits between the pins not listed")
	assert.NotContains(t, r.stdout, "upstream commit(s)")

	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"--upstream, a git URL", nil, []string{"--upstream", u.url}},
		{"--upstream, a local mirror", nil, []string{"--upstream", mirror}},
		{"EPP_BUILD_UPSTREAM, a git URL", []string{upstreamEnv + "=" + u.url}, nil},
		{"EPP_BUILD_UPSTREAM, a local mirror", []string{upstreamEnv + "=" + mirror}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache := t.TempDir()
			r := runEnv(t, cache, c.env, append([]string{"--patches", patches, "diff-series", "v9", "v10"}, c.args...)...)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, between)
			assert.NotContains(t, r.stderr, "not listed")
			assert.NotContains(t, r.stderr, "127.0.0.1:1")

			// A fresh cache: log reads the history itself.
			r = runEnv(t, t.TempDir(), c.env, append([]string{"--patches", patches, "log", "--version", "v10", "--since", "v9"}, c.args...)...)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, sinceLine)
			assert.NotContains(t, r.stderr, "not listed")
			assert.NotContains(t, r.stderr, "127.0.0.1:1")
		})
	}
}

// TestRebaseTakesTheMirrorFromTheEnvironment: with EPP_BUILD_UPSTREAM
// naming a local mirror and the recipe's repository dead, rebase looks the
// new pin up, fetches it and drops the pick the new pin already has, all
// from the mirror; the new recipe still names the recipe's repository.
func TestRebaseTakesTheMirrorFromTheEnvironment(t *testing.T) {
	testenv.Tool(t, "git", "the upstream history is read with the git CLI")
	u := newTwoPins(t)
	u.repo.AllowFetchBySHA(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"}})
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
	path := filepath.Join(patches, "v9", "recipe.yaml")
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), u.url, deadUpstream, 1)), 0o644))
	mirror := filepath.Join(t.TempDir(), "gaie.git")
	gitfixture.Git(t, filepath.Dir(mirror), "clone", "-q", "--mirror", u.repo.Dir, mirror)

	r = runEnv(t, cache, []string{upstreamEnv + "=" + mirror}, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10",
		"--no-verify", "--dir", filepath.Join(t.TempDir(), "rebase"))
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "0002-Fix-c.patch: already upstream: its Upstream: commit "+u.v2[:12]+" is in "+u.v2[:12]+"; dropped")
	assert.NotContains(t, r.stderr, "127.0.0.1:1")
	text, err := os.ReadFile(filepath.Join(patches, "v10", "recipe.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(text), "repository: "+deadUpstream)
	assert.NotContains(t, string(text), mirror)
}
