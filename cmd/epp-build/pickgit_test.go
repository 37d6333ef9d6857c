package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pick reads --from and its revisions as git cherry-pick does: a bare
// mirror is a repository, A..B a range of what B adds, and an empty range
// is a usage error (exit 2) naming it.
func TestPickFromABareMirrorWithGitRanges(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)

	fix := gitfixture.NewAt(t, filepath.Join(t.TempDir(), "fixes"))
	fix.Git(t, "fetch", "-q", u.repo.Dir, "v1")
	fix.Git(t, "checkout", "-q", "FETCH_HEAD")
	base := fix.RevParse(t, "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "d.txt"), []byte(gitfixture.NumberedLines("d", 20)+"appended by the fix\n"), 0o644))
	fix.Git(t, "commit", "-q", "-am", "Fix the tail of d")
	bare := filepath.Join(t.TempDir(), "fixes.git")
	gitfixture.Git(t, "", "clone", "-q", "--mirror", fix.Dir, bare)
	tip := fix.RevParse(t, "HEAD")
	before := snapshot(t, patches)

	empty := tip + ".." + base
	r := run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", bare, "--reason", "r", "--upstream-link", "https://example.com/pull/1", empty)
	require.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "pick "+empty+" from "+bare+": the range holds no commits")
	assert.NotContains(t, r.stderr, "parents")
	assert.Equal(t, before, snapshot(t, patches))

	r = run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", bare, "--reason", "r", "--upstream-link", "https://example.com/pull/1", base+".."+tip)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Equal(t, "picked 0005-Fix-the-tail-of-d.patch into v9\n", r.stdout)
	patch, err := os.ReadFile(filepath.Join(patches, "v9", "0005-Fix-the-tail-of-d.patch"))
	require.NoError(t, err)
	assert.Contains(t, string(patch), "+appended by the fix\n")
}
