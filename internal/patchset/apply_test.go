package patchset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// seriesFromGit commits changes on top of a base repo with the git CLI,
// formats them with git format-patch, and resets the repo to its base.
func seriesFromGit(t *testing.T, dir string, changes func()) []*Patch {
	t.Helper()
	base := gitfixture.Git(t, dir, "rev-parse", "HEAD")
	changes()
	out := t.TempDir()
	gitfixture.Git(t, dir, "format-patch", "-q", "--binary", "--full-index", "-o", out, base+"..HEAD")
	want := gitfixture.Git(t, dir, "rev-parse", "HEAD^{tree}")
	gitfixture.Git(t, dir, "reset", "-q", "--hard", base)
	names, err := filepath.Glob(filepath.Join(out, "*.patch"))
	require.NoError(t, err)
	var patches []*Patch
	for _, n := range names {
		ps, err := ParseFile(n, filepath.Base(n))
		require.NoError(t, err)
		patches = append(patches, ps...)
	}
	t.Setenv("EPP_WANT_TREE", want)
	return patches
}

func TestApplyMatchesGitForEveryKindOfChange(t *testing.T) {
	dir := baseRepo(t, map[string]string{
		"a.txt":          numbered(40, "a"),
		"dir/keep.go":    "package dir\n",
		"dir/gone.txt":   "bye\n",
		"old/name.txt":   numbered(20, "moved"),
		"script.sh":      "#!/bin/sh\necho hi\n",
		"nonl.txt":       "no newline",
		"bin/blob.bin":   "\x00\x01\x02binary",
		"copy/src.txt":   numbered(15, "copy"),
		"deep/a/b/c.txt": "deep\n",
	})
	patches := seriesFromGit(t, dir, func() {
		gitfixture.WriteFiles(t, dir, map[string]string{
			"a.txt":        strings.Replace(strings.Replace(numbered(40, "a"), "a line x\n", "a line X changed\n", 1), "a line xxxxxx\n", "a line six\n", 1),
			"new/file.go":  "package new\n",
			"nonl.txt":     "no newline still",
			"bin/blob.bin": "\x00\x01\x02binary changed\x00",
		})
		gitfixture.Git(t, dir, "rm", "-q", "dir/gone.txt", "deep/a/b/c.txt")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "renamed"), 0o755))
		gitfixture.Git(t, dir, "mv", "old/name.txt", "renamed/name.txt")
		require.NoError(t, os.Chmod(filepath.Join(dir, "script.sh"), 0o755))
		gitfixture.Git(t, dir, "add", "-A")
		gitfixture.Git(t, dir, "commit", "-q", "--author=Ada Author <ada@example.com>", "--date=2025-07-23T10:00:00+02:00", "-m", "Change many things\n\nWhy: to cover every kind.\n\nUpstream: none\nReason: test")
		gitfixture.WriteFiles(t, dir, map[string]string{"a.txt": numbered(41, "a")})
		gitfixture.Git(t, dir, "add", "-A")
		gitfixture.Git(t, dir, "commit", "-q", "-m", "Second")
	})
	require.Len(t, patches, 2)

	res, err := applyPatchesToRepo(context.Background(), dir, patches, Options{Branch: "epp-build/test"})
	require.NoError(t, err)
	require.Len(t, res.Patches, 2)

	assert.Equal(t, os.Getenv("EPP_WANT_TREE"), gitfixture.Git(t, dir, "rev-parse", "HEAD^{tree}"), "tree must match what git produced")
	assert.Empty(t, gitfixture.Git(t, dir, "status", "--porcelain"), "work tree and index must be clean")
	assert.Equal(t, "Ada Author <ada@example.com> 2025-07-23T10:00:00+02:00", gitfixture.Git(t, dir, "log", "-1", "--format=%an <%ae> %aI", "HEAD~1"))
	assert.Equal(t, "Change many things\n\nWhy: to cover every kind.\n\nUpstream: none\nReason: test", gitfixture.Git(t, dir, "log", "-1", "--format=%B", "HEAD~1"))
	assert.Equal(t, res.Base, gitfixture.Git(t, dir, "rev-parse", UpstreamRef))
	assert.NoDirExists(t, filepath.Join(dir, "deep"), "directories a delete empties are pruned")
	fi, err := os.Stat(filepath.Join(dir, "script.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm())
}
