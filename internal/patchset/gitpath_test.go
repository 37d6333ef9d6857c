package patchset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// gitPathCase is a path git may refuse, written by a new file, a new
// symlink or the rename of the base's symlink "link" without mode lines.
type gitPathCase struct {
	name    string
	diff    string
	refused bool
}

const (
	asFile = iota
	asSymlink
	asLinkRename
)

// gitQuote quotes a name as git's diff headers do (octal escapes for
// every byte outside printable ASCII), so that trailing spaces and bytes
// that are not UTF-8 reach both parsers intact.
func gitQuote(name string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func gitPathDiff(kind int, path string) string {
	q := func(prefix string) string { return gitQuote(prefix + path) }
	switch kind {
	case asLinkRename:
		return "diff --git a/link " + q("b/") + "\nsimilarity index 100%\nrename from link\nrename to " + q("") + "\n"
	case asSymlink:
		return "diff --git " + q("a/") + " " + q("b/") + "\nnew file mode 120000\n--- /dev/null\n+++ " + q("b/") +
			"\n@@ -0,0 +1 @@\n+README.md\n\\ No newline at end of file\n"
	}
	return "diff --git " + q("a/") + " " + q("b/") + "\nnew file mode 100644\n--- /dev/null\n+++ " + q("b/") + "\n@@ -0,0 +1 @@\n+new\n"
}

// gitPathCases are what git 2.39 does with core.protectNTFS and
// core.protectHFS on, found by running it (the test checks it again).
// Without core.protectHFS, git on Linux accepts the HFS+ cases.
func gitPathCases() []gitPathCase {
	kinds := []string{"file", "symlink", "link renamed to"}
	c := func(path string, kind int, refused bool) gitPathCase {
		return gitPathCase{name: kinds[kind] + " " + strconv.Quote(path), diff: gitPathDiff(kind, path), refused: refused}
	}
	return []gitPathCase{
		// .git as NTFS reads it: trailing dots and spaces, a stream, the
		// 8.3 short name, in any component.
		c(".git./config", asFile, true),
		c(".git. ./config", asFile, true),
		c(".git /config", asFile, true),
		c(".git::$INDEX_ALLOCATION/config", asFile, true),
		c(".git:stream", asFile, true),
		c("git~1/config", asFile, true),
		c("GIT~1/hooks/post-checkout", asFile, true),
		c("sub/.git./config", asFile, true),
		c("sub/git~1", asFile, true),
		// Case alone is refused on every system.
		c(".GIT/config", asFile, true),
		c(".Git/hooks/post-checkout", asFile, true),
		// .git as HFS+ reads it: ignorable code points anywhere, and a
		// name that stops being UTF-8 right after it.
		c(".g\u200cit/config", asFile, true),
		c("\ufeff.git/config", asFile, true),
		c(".GI\u200dT/config", asFile, true),
		c("sub/.git\u200e/config", asFile, true),
		c(".git\xff", asFile, true),
		// .gitmodules as a symlink, under each of its names.
		c(".gitmodules", asSymlink, true),
		c(".GITMODULES", asSymlink, true),
		c("sub/.gitmodules", asSymlink, true),
		c(".gitmodules.", asSymlink, true),
		c(".gitmodules ", asSymlink, true),
		c(".gitmodules::$DATA", asSymlink, true),
		c("gitmod~1", asSymlink, true),
		c("GITMOD~4", asSymlink, true),
		c("gi7eba~1", asSymlink, true),
		c("gi7eb~12", asSymlink, true),
		c("~1234567", asSymlink, true),
		c(".gitmodules\u200c", asSymlink, true),
		c(".gitmodules/b", asSymlink, true),
		c("sub/.gitmodules:x/y", asSymlink, true),
		c(".gitmodules", asLinkRename, true),
		c("gitmod~1", asLinkRename, true),
		// Look-alikes git accepts.
		c(".gitx/config", asFile, false),
		c("git~2/config", asFile, false),
		c("foo.git/config", asFile, false),
		c(".github/workflows/ci.yml", asFile, false),
		c(".git.$DATA", asFile, false),
		c(".git~1/config", asFile, false),
		c(".g\xffit/config", asFile, false),
		c("docs/.g\u200cithub", asFile, false),
		c(".gitmodules", asFile, false),
		c("sub/.gitmodules", asFile, false),
		c("gitmod~1", asFile, false),
		c("gitmod~5", asSymlink, false),
		c("gitmod~1/b", asSymlink, false),
		c(".gitmodules/b", asFile, false),
		// Only .gitmodules: git 2.39 writes these as symlinks.
		c(".gitattributes", asSymlink, false),
		c(".gitignore", asSymlink, false),
		c(".mailmap", asSymlink, false),
	}
}

// linkBase is a repository with README.md and the symlink link to it.
func linkBase(t *testing.T) string {
	dir := baseRepo(t, map[string]string{"README.md": "# Fixture\n"})
	require.NoError(t, os.Symlink("README.md", filepath.Join(dir, "link")))
	gitfixture.Git(t, dir, "add", "link")
	gitfixture.Git(t, dir, "commit", "-q", "-m", "link")
	return dir
}

func gitPathPatch(t *testing.T, c gitPathCase) (string, []*Patch) {
	file := filepath.Join(t.TempDir(), "path.patch")
	require.NoError(t, os.WriteFile(file, []byte(modeHeader+c.diff), 0o644))
	patches, err := ParseFile(file, "path.patch")
	require.NoError(t, err)
	return file, patches
}

// protected is how git refuses every alias on every system.
var protected = []string{"-c", "core.protectNTFS=true", "-c", "core.protectHFS=true"}

// TestPathsGitRefusesAreRefused: the engine refuses exactly the paths git
// apply refuses, checked (--check) and applied (--index).
func TestPathsGitRefusesAreRefused(t *testing.T) {
	for _, c := range gitPathCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := linkBase(t)
			file, patches := gitPathPatch(t, c)

			_, checkErr := gitfixture.TryGit(dir, append(protected, "apply", "--check", file)...)
			byGit := filepath.Join(t.TempDir(), "git")
			gitfixture.Git(t, "", "clone", "-q", dir, byGit)
			_, indexErr := gitfixture.TryGit(byGit, append(protected, "apply", "--index", file)...)
			assert.Equal(t, c.refused, checkErr != nil, "git apply --check: %v", checkErr)
			assert.Equal(t, c.refused, indexErr != nil, "git apply --index: %v", indexErr)

			_, err := applyPatchesToRepo(context.Background(), dir, patches, Options{})
			if !c.refused {
				require.NoError(t, err)
				return
			}
			var refused *UnsafeError
			require.ErrorAs(t, err, &refused)
			assert.Equal(t, "", gitfixture.Git(t, dir, "status", "--porcelain"), "a refused patch writes nothing")
		})
	}
}

// TestPathsGitRefusesAreRefusedFreshAndInPlace: a re-apply that updates
// the output in place refuses them as a fresh apply does, and leaves the
// output as it was.
func TestPathsGitRefusesAreRefusedFreshAndInPlace(t *testing.T) {
	base := linkBase(t)
	v1 := seriesFromGit(t, base, func() {
		gitfixture.WriteFiles(t, base, map[string]string{"README.md": "# Changed\n"})
		gitfixture.Git(t, base, "commit", "-q", "-am", "Change the readme")
	})
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base, "rev-parse", "HEAD")}}
	opt := Options{Branch: "epp-build/v1"}
	out := filepath.Join(t.TempDir(), "out")
	_, err := applyPatches(context.Background(), r, v1, cloneBase(t, base), out, opt)
	require.NoError(t, err)
	head := gitfixture.Git(t, out, "rev-parse", "HEAD")
	noFetch := func(context.Context) (Base, error) {
		t.Fatal("a re-apply in place needs no upstream")
		return Base{}, nil
	}
	for _, c := range gitPathCases() {
		if !c.refused {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			_, patches := gitPathPatch(t, c)
			var refused *UnsafeError

			fresh := filepath.Join(t.TempDir(), "fresh")
			_, err := applyPatches(context.Background(), r, patches, cloneBase(t, base), fresh, opt)
			require.ErrorAs(t, err, &refused, "fresh")
			_, err = os.Lstat(fresh)
			assert.ErrorIs(t, err, os.ErrNotExist, "a refused fresh apply makes no output")

			_, err = applyPatches(context.Background(), r, patches, noFetch, out, opt)
			require.ErrorAs(t, err, &refused, "in place")
			assert.Equal(t, head, gitfixture.Git(t, out, "rev-parse", "HEAD"))
			assert.Equal(t, "", gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all"), "a refused re-apply writes nothing")
		})
	}
}
