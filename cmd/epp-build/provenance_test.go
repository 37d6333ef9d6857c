package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// readRecord reads applied.json of a work tree.
func readRecord(t *testing.T, dir string) patchset.Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".git", patchset.RecordFile))
	require.NoError(t, err)
	var rec patchset.Record
	require.NoError(t, json.Unmarshal(data, &rec))
	return rec
}

// TestUpstreamCredentialsNeverShownOrStored: apply --upstream with
// user:token@ fetches with those credentials; the token is in no output,
// no cache file and no file of --out, and applied.json names the upstream
// actually used (redacted), not the recipe's.
func TestUpstreamCredentialsNeverShownOrStored(t *testing.T) {
	const user, secret = "release-bot", "s3cret-token"
	u := newUpstream(t)
	base := gitfixture.ServeHTTPWithAuth(t, filepath.Dir(u.repo.Dir), user, secret)
	withAuth := strings.Replace(u.repo.HTTPURL(base), "http://", "http://"+user+":"+secret+"@", 1)
	shown := strings.Replace(withAuth, secret, "xxxxx", 1)
	rec := recipeDir(t, upstream{url: "https://recipe.example.invalid/gaie.git"}, "v1.0.0", u.commit, nil)
	cache := t.TempDir()

	out := filepath.Join(t.TempDir(), "work")
	r := run(t, cache, "apply", "--recipe", rec, "--out", out, "--source", "git", "--upstream", withAuth)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(via git from "+shown+")")
	got := readRecord(t, out)
	assert.Equal(t, shown, got.Repository)
	assert.Equal(t, "git", got.Via)

	// A second run is served from the cache and says so truthfully.
	again := filepath.Join(t.TempDir(), "again")
	r2 := run(t, cache, "apply", "--recipe", rec, "--out", again, "--upstream", withAuth)
	require.Equal(t, 0, r2.code, r2.stderr)
	assert.Contains(t, r2.stdout, "(from cache (fetched via git from "+shown+" at ")

	// A wrong token fails without showing either token.
	wrong := strings.Replace(withAuth, secret, "not-"+secret, 1)
	r3 := run(t, t.TempDir(), "apply", "--recipe", rec, "--out", filepath.Join(t.TempDir(), "w3"), "--source", "git", "--upstream", wrong)
	assert.NotEqual(t, 0, r3.code)
	assert.Contains(t, r3.stderr, "authentication required")

	for _, res := range []result{r, r2, r3} {
		assert.NotContains(t, res.stdout+res.stderr, secret)
	}
	testutil.AssertNoSecretUnder(t, cache, secret)
	testutil.AssertNoSecretUnder(t, out, secret)
	testutil.AssertNoSecretUnder(t, again, secret)
}

// TestWarmCacheProvenanceIsTrue: a tree cached by --source path and then
// applied with --source git is reported as coming from the cache, fetched
// via path, not "via git" nor a bare "via path"; applied.json names the
// folder it was read from.
func TestWarmCacheProvenanceIsTrue(t *testing.T) {
	u := newUpstream(t)
	rec := recipeDir(t, u, "v1.0.0", u.commit, nil)
	cache := t.TempDir()
	r := run(t, cache, "apply", "--recipe", rec, "--out", filepath.Join(t.TempDir(), "a"), "--source", "path", "--upstream", u.repo.Dir)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(via path from "+u.repo.Dir+")")

	out := filepath.Join(t.TempDir(), "b")
	r = run(t, cache, "apply", "--recipe", rec, "--out", out, "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "(from cache (fetched via path from "+u.repo.Dir+" at ")
	assert.NotContains(t, r.stdout, "(via path)")
	got := readRecord(t, out)
	assert.Equal(t, u.repo.Dir, got.Repository)
	assert.Equal(t, "path", got.Via)
	assert.Contains(t, got.Provenance, "from cache (fetched via path from "+u.repo.Dir)
}

// TestCorruptCacheEntryRefetchedInTheRun: a damaged file in the cache
// entry costs one notice and a refetch, not a failed run.
func TestCorruptCacheEntryRefetchedInTheRun(t *testing.T) {
	u := newUpstream(t)
	rec := recipeDir(t, u, "v1.0.0", u.commit, nil)
	cache := t.TempDir()
	r := run(t, cache, "apply", "--recipe", rec, "--out", filepath.Join(t.TempDir(), "a"), "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)
	// The entry keeps every file's content in one blob store: damage
	// src/main.go's bytes there, keeping the size.
	store := filepath.Join(cache, "epp-build", "upstream", "git-"+u.commit, "blobs")
	blobs, err := os.ReadFile(store)
	require.NoError(t, err)
	at := bytes.Index(blobs, []byte(`println("upstream")`))
	require.GreaterOrEqual(t, at, 0, "src/main.go's content is in the blob store")
	copy(blobs[at:], "PRINTLN")
	require.NoError(t, os.WriteFile(store, blobs, 0o644))

	out := filepath.Join(t.TempDir(), "b")
	r = run(t, cache, "apply", "--recipe", rec, "--out", out, "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "notice: "), r.stderr)
	assert.Contains(t, r.stderr, "src/main.go")
	data, err := os.ReadFile(filepath.Join(out, "src", "main.go"))
	require.NoError(t, err)
	assert.Equal(t, "package main\n\nfunc main() {\n\tprintln(\"upstream\")\n}\n", string(data))
}

// TestRebaseUpstreamCredentialsNeverStored: a rebase fetched through a
// mirror URL with credentials writes a recipe that names the repository
// without them, and leaves the password nowhere in patches/.
func TestRebaseUpstreamCredentialsNeverStored(t *testing.T) {
	const user, secret = "release-bot", "s3cret-token"
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	base := gitfixture.ServeHTTPWithAuth(t, filepath.Dir(u.repo.Dir), user, secret)
	plain := u.repo.HTTPURL(base)
	withAuth := strings.Replace(plain, "http://", "http://"+user+":"+secret+"@", 1)

	work := filepath.Join(t.TempDir(), "rebase")
	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work, "--upstream", withAuth)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	r2 := run(t, cache, "--patches", patches, "rebase", "--skip", "--dir", work)
	require.Equal(t, 0, r2.code, r2.stdout+r2.stderr)

	got, err := os.ReadFile(filepath.Join(patches, "v10", "recipe.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(got), "repository: "+u.url+"\n", "the mirror given with --upstream is used, the recipe keeps its repository")
	assert.NotContains(t, string(got), plain)
	for _, res := range []result{r, r2} {
		assert.NotContains(t, res.stdout+res.stderr, secret)
	}
	testutil.AssertNoSecretUnder(t, patches, secret)
}
