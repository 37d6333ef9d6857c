package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantLeftovers puts in out what a kill between making a temporary file
// and renaming it leaves, one of each writer's, named as atomicfile names
// them: a patched file of the work tree (Write), a symlink of the work
// tree (Symlink), the git index and the re-apply journal. It returns
// their paths.
func plantLeftovers(t *testing.T, out string) []string {
	t.Helper()
	files := []string{
		filepath.Join(out, "docs", ".a.txt.epp-build-3405691582.tmp"),
		filepath.Join(out, ".git", ".index.epp-build-17.tmp"),
		filepath.Join(out, ".git", "epp-build", ".reapply.json.epp-build-4026531840.tmp"),
	}
	for _, f := range files {
		require.NoError(t, os.WriteFile(f, []byte("half a write"), 0o600))
	}
	link := filepath.Join(out, "src", ".main.go.epp-build-1y2p0ij32e8e7.tmp")
	require.NoError(t, os.Symlink("elsewhere", link))
	return append(files, link)
}

// TestApplyRemovesWhatAKilledWriteLeft: the temporary files a kill leaves
// under names drawn at random (no later write replaces them) are removed
// by the next apply, already applied or re-applied in place, which then
// leaves exactly its series; files of the user's that merely look like
// temporary files stay, and are no reason to refuse or replace the tree.
func TestApplyRemovesWhatAKilledWriteLeft(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	one := recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{"0001-docs.patch": []byte(docsPatch)}, "0001-docs.patch")
	two := protectedSeries(t, u)
	heads := make([]string, 2)
	for i, dir := range []string{one, two} {
		ref := filepath.Join(t.TempDir(), "ref")
		r := run(t, cache, "apply", "--recipe", dir, "--out", ref)
		require.Equal(t, 0, r.code, r.stderr)
		heads[i] = gitfixture.Git(t, ref, "rev-parse", "HEAD")
	}
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", one, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)

	// The same series: nothing to write, but the leftovers go.
	left := plantLeftovers(t, out)
	r = run(t, cache, "apply", "--recipe", one, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	for _, f := range left {
		assert.NoFileExists(t, f)
	}
	assert.Contains(t, r.stderr, "removed 2 temporary file(s) an interrupted apply left in "+filepath.Join(out, ".git"))
	assert.Contains(t, r.stderr, "removed 2 temporary file(s) an interrupted apply left in "+out+"\n")
	assertExactly(t, out, heads[0])

	// Another series, in place, with files of the user's named like
	// temporary files beside the leftovers.
	mine := []string{"notes.tmp", "docs/.notes.tmp", "docs/.a.txt.123.tmp", "src/main.go.epp-build-1.tmp"}
	for _, p := range mine {
		require.NoError(t, os.WriteFile(filepath.Join(out, filepath.FromSlash(p)), []byte("mine\n"), 0o644))
	}
	left = plantLeftovers(t, out)
	r = run(t, cache, "apply", "--recipe", two, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	for _, f := range left {
		assert.NoFileExists(t, f)
	}
	for _, p := range mine {
		assert.FileExists(t, filepath.Join(out, filepath.FromSlash(p)), "a file of the user's stays")
	}
	status := strings.Split(gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all", "--ignored"), "\n")
	assert.ElementsMatch(t, []string{"?? docs/.a.txt.123.tmp", "?? docs/.notes.tmp", "?? notes.tmp", "?? src/main.go.epp-build-1.tmp"}, status)
	for _, p := range mine {
		require.NoError(t, os.Remove(filepath.Join(out, filepath.FromSlash(p))))
	}
	assertExactly(t, out, heads[1])

	// A changed tracked file is refused as before; a leftover beside it is
	// not named as a change, and is removed all the same.
	appendTo(t, filepath.Join(out, "README.md"), "my note\n")
	require.NoError(t, os.WriteFile(filepath.Join(out, "notes.tmp"), []byte("mine\n"), 0o644))
	left = plantLeftovers(t, out)
	r = run(t, cache, "apply", "--recipe", one, "--out", out)
	require.NotEqual(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "README.md")
	assert.NotContains(t, r.stderr, ".tmp", "neither the leftover nor notes.tmp is a change to lose")
	for _, f := range left {
		assert.NoFileExists(t, f)
	}
	assert.FileExists(t, filepath.Join(out, "notes.tmp"))
}
