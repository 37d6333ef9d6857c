package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
