package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/epp-build/epp-build/internal/testutil/modproxy"
)

// refusingProxy is a module proxy that answers every request 403, as
// proxy.golang.org does for a commit it will not serve.
func refusingProxy(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "not available", http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// goPseudoVersion is the pseudo-version the go command gives commit of
// repoDir after the tag base, written out here from git's own answer.
func goPseudoVersion(t *testing.T, repoDir, base, commit string) string {
	secs, err := strconv.ParseInt(strings.TrimSpace(gitfixture.Git(t, repoDir, "log", "-1", "--format=%ct", commit)), 10, 64)
	require.NoError(t, err)
	return module.PseudoVersion("v0", base, time.Unix(secs, 0), commit[:12])
}

// TestRebaseOntoACommitWorksOutItsModuleVersion rebases a recipe that has
// a module onto a commit only the git server has (the module proxy
// answers 403): the version is the one the go command gives that commit
// (the v1.1.0 tag in its history is the base), its hash is computed from
// the tree, and a made-up version is refused by rebase, check and lint.
func TestRebaseOntoACommitWorksOutItsModuleVersion(t *testing.T) {
	u := newTwoPins(t)
	next := u.repo.Commit(t, "after v2", map[string]string{"e.txt": "e\n"})
	want := goPseudoVersion(t, u.repo.Dir, "v1.1.0", next)
	require.True(t, strings.HasPrefix(want, "v1.1.1-0."), want)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOnV1(t, u, patches, cache)
	text, err := os.ReadFile(filepath.Join(dir, "recipe.yaml"))
	require.NoError(t, err)
	withModule := strings.Replace(string(text), "commit: "+u.v1+"\n", "commit: "+u.v1+"\n  module: example.com/gaie\n  moduleVersion: v1.0.0\n  moduleHash: "+
		moduleHashOf(t, u.repo.Dir, u.v1, "example.com/gaie", "v1.0.0")+"\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(withModule), 0o644))
	env := []string{"GOPROXY=" + refusingProxy(t)}

	// A made-up version is refused before anything is fetched into a work
	// tree, naming the one the commit has.
	work := filepath.Join(t.TempDir(), "rebase")
	for _, made := range []string{
		"v0.0.0-20260616110126-deadbeefdead",
		strings.Replace(want, want[9:23], "20990101000000", 1),
		"v0.0.0-" + want[9:], // no base, though v1.1.0 is in the history
	} {
		r := runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v9", "--onto", next, "--as", "v10", "--dir", work,
			"--onto-module-version", made)
		assert.Equal(t, 5, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "module version example.com/gaie@"+made+" is not commit "+next[:12]+"'s", made)
		assert.Contains(t, r.stderr, "give --onto-module-version "+want+", or leave it out", made)
		assert.NoDirExists(t, work)
		assert.NoDirExists(t, filepath.Join(patches, "v10"))
	}

	r := runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v9", "--onto", next, "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, next+" is example.com/gaie@"+want+" (computed: committed ")
	assert.Contains(t, r.stderr, "after tag v1.1.0)")
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--skip", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	got, err := os.ReadFile(filepath.Join(patches, "v10", "recipe.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "  ref: "+next+"\n  commit: "+next+"\n  module: example.com/gaie\n  moduleVersion: "+want+"\n  moduleHash: "+
		moduleHashOf(t, u.repo.Dir, next, "example.com/gaie", want)+"\n")
	r = runEnv(t, cache, env, "--patches", patches, "check", "--version", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = runEnv(t, cache, env, "--patches", patches, "lint", "--version", "v10")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.NotContains(t, r.stderr, "moduleVersion", "the history is cached: the version was checked")

	// The same version given is taken; a made-up one in the recipe is
	// refused by check and lint, naming the right one.
	work = filepath.Join(t.TempDir(), "rebase")
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v9", "--onto", next, "--as", "v11", "--dir", work, "--onto-module-version", want)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--abort", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	madeUp := "v0.0.0-20260616110126-deadbeefdead"
	require.NoError(t, os.WriteFile(filepath.Join(patches, "v10", "recipe.yaml"), []byte(strings.Replace(string(got), want, madeUp, 1)), 0o644))
	r = runEnv(t, cache, env, "--patches", patches, "check", "--version", "v10")
	assert.Equal(t, 5, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "set upstream.moduleVersion to "+want)
	r = runEnv(t, cache, env, "--patches", patches, "lint", "--version", "v10")
	assert.Equal(t, 5, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "v10: module version example.com/gaie@"+madeUp+" is not commit "+next[:12]+"'s: its revision deadbeefdead is not the commit's "+next[:12])
	assert.Contains(t, r.stdout, "set upstream.moduleVersion to "+want)

	// Without the history in the cache, lint says it did not check.
	fresh := t.TempDir()
	r = runEnv(t, fresh, env, "--patches", patches, "lint", "--version", "v10")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "notice: v10: upstream.moduleVersion "+madeUp+" is not checked against commit "+next[:12]+": its history is not in the cache")

	// check from a mirror keeps the mirror's history: lint reads it when
	// given the same mirror, by flag or by EPP_BUILD_UPSTREAM.
	r = runEnv(t, fresh, env, "--patches", patches, "check", "--version", "v10", "--upstream", u.repo.Dir)
	assert.Equal(t, 5, r.code, r.stdout+r.stderr)
	r = runEnv(t, fresh, env, "--patches", patches, "lint", "--version", "v10")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = runEnv(t, fresh, env, "--patches", patches, "lint", "--version", "v10", "--upstream", u.repo.Dir)
	assert.Equal(t, 5, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "set upstream.moduleVersion to "+want)
	r = runEnv(t, fresh, append(env, "EPP_BUILD_UPSTREAM="+u.repo.Dir), "--patches", patches, "lint", "--version", "v10")
	assert.Equal(t, 5, r.code, r.stdout+r.stderr)
}

// TestRebaseOntoAPseudoVersionChecksTheProxysAnswer rebases onto a
// pseudo-version, whose commit the module proxy names: the version is
// checked against that commit's history, so a proxy's made-up one is
// refused and the right one taken.
func TestRebaseOntoAPseudoVersionChecksTheProxysAnswer(t *testing.T) {
	u := newTwoPins(t)
	next := u.repo.Commit(t, "after v2", map[string]string{"e.txt": "e\n"})
	want := goPseudoVersion(t, u.repo.Dir, "v1.1.0", next)
	cache := t.TempDir()
	patches := t.TempDir()
	proxy := modproxy.Serve(t, "example.com/gaie")
	old := proxy.AddCommit(t, u.repo.Dir, "v1", "v1.0.0", "v1.0.0")
	right := proxy.AddCommit(t, u.repo.Dir, next, want, next)
	baseless := proxy.AddCommit(t, u.repo.Dir, next, "") // what a proxy ignoring tags would say
	require.Equal(t, "v0.0.0-"+want[9:], baseless.Version)
	dir := seriesOnV1(t, u, patches, cache)
	text, err := os.ReadFile(filepath.Join(dir, "recipe.yaml"))
	require.NoError(t, err)
	withModule := strings.Replace(string(text), "commit: "+u.v1+"\n", "commit: "+u.v1+"\n  module: example.com/gaie\n  moduleVersion: v1.0.0\n  moduleHash: "+old.Hash+"\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(withModule), 0o644))
	env := []string{"GOPROXY=" + proxy.URL}

	work := filepath.Join(t.TempDir(), "rebase")
	r := runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v9", "--onto", baseless.Version, "--as", "v11", "--dir", work)
	assert.Equal(t, 5, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "its base is none (v0.0.0), but the highest tag in the commit's history is v1.1.0")
	assert.NoDirExists(t, work)

	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v9", "--onto", right.Version, "--as", "v11", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, right.Version+" is commit "+next)
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--skip", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	got, err := os.ReadFile(filepath.Join(patches, "v11", "recipe.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "  moduleVersion: "+want+"\n  moduleHash: "+right.Hash+"\n")
	// The pin is right: the module proxy source fetches and verifies it.
	r = runEnv(t, t.TempDir(), env, "--patches", patches, "check", "--version", "v11", "--source", "goproxy")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
}
