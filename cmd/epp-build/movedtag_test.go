package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestMovedTagWithACachedPinExits5: the recipe's commit is cached when its
// tag moves upstream; once a fetch has seen the tag at its new commit, an
// apply of the old pin is refused as a mismatch (exit 5) naming the tag,
// both commits and the fix, instead of applying from the cache silently.
func TestMovedTagWithACachedPinExits5(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	old := recipeDir(t, u, "v1.0.0", u.commit, nil)
	r := run(t, cache, "apply", "--recipe", old, "--out", filepath.Join(t.TempDir(), "a"), "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)

	moved := u.repo.Commit(t, "after the release", map[string]string{"docs/b.txt": "b\n"})
	u.repo.MoveTag(t, "v1.0.0", moved, true)
	r = run(t, cache, "apply", "--recipe", recipeDir(t, u, "v1.0.0", moved, nil), "--out", filepath.Join(t.TempDir(), "b"), "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)

	out := filepath.Join(t.TempDir(), "c")
	r = run(t, cache, "apply", "--recipe", old, "--out", out, "--source", "git")
	assert.Equal(t, 5, r.code, r.stderr)
	assert.Contains(t, r.stderr, "v1.0.0 at "+u.url+" points at commit "+moved)
	assert.Contains(t, r.stderr, "but the recipe pins "+u.commit)
	assert.Contains(t, r.stderr, "fix upstream.ref or upstream.commit")
	assert.NoDirExists(t, out)
}

// TestMovedTagWithACachedPinAndNoOtherFetchExits5: the tag moves after
// its commit was cached and nothing fetches it at its new commit; the
// warm apply asks the server once where the tag points and is refused
// (exit 5) instead of applying the cached copy silently.
func TestMovedTagWithACachedPinAndNoOtherFetchExits5(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	old := recipeDir(t, u, "v1.0.0", u.commit, nil)
	r := run(t, cache, "apply", "--recipe", old, "--out", filepath.Join(t.TempDir(), "a"), "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)

	moved := u.repo.Commit(t, "after the release", map[string]string{"docs/b.txt": "b\n"})
	u.repo.MoveTag(t, "v1.0.0", moved, true)
	out := filepath.Join(t.TempDir(), "c")
	r = run(t, cache, "apply", "--recipe", old, "--out", out, "--source", "git")
	assert.Equal(t, 5, r.code, r.stderr)
	assert.Contains(t, r.stderr, "v1.0.0 at "+u.url+" points at commit "+moved)
	assert.Contains(t, r.stderr, "but the recipe pins "+u.commit)
	assert.NoDirExists(t, out)
}

// TestWarmTagPinOfflineAppliesWithANotice: with the git server gone, a
// warm apply of a tag pin cannot confirm the tag; it applies from the
// cache (exit 0) and says so in one line, never failing for being offline.
func TestWarmTagPinOfflineAppliesWithANotice(t *testing.T) {
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "gaie"))
	commit := repo.Commit(t, "release", map[string]string{"README.md": "fixture\n"})
	repo.Tag(t, "v1.0.0", commit, true)
	srv := httptest.NewServer(gitfixture.Handler(t, root))
	defer srv.Close()
	u := upstream{repo: repo, url: repo.HTTPURL(srv.URL), commit: commit}
	cache := t.TempDir()
	dir := recipeDir(t, u, "v1.0.0", commit, nil)
	r := run(t, cache, "apply", "--recipe", dir, "--out", filepath.Join(t.TempDir(), "a"), "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)
	require.NotContains(t, r.stderr, "could not confirm")

	srv.Close()
	out := filepath.Join(t.TempDir(), "b")
	r = run(t, cache, "apply", "--recipe", dir, "--out", out, "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "could not confirm that tag v1.0.0 at "+u.url+" still points at "+commit), r.stderr)
	assert.FileExists(t, filepath.Join(out, "README.md"))
}
