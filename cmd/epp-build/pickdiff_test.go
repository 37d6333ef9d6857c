package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainDiffOnV9 is `git diff` output made on v9's applied tree, as Dynamo
// ships its epp-patches, and that tree.
func plainDiffOnV9(t *testing.T, patches, cache string) (diff, base string) {
	t.Helper()
	base = filepath.Join(t.TempDir(), "base")
	r := run(t, cache, "--patches", patches, "apply", "--version", "v9", "--out", base)
	require.Equal(t, 0, r.code, r.stderr)
	require.NoError(t, os.WriteFile(filepath.Join(base, "d.txt"), []byte(strings.Replace(readText(t, filepath.Join(base, "d.txt")), "d 20 line\n", "d 20 line\nappended by dynamo\n", 1)), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "routes.txt"), []byte("model -> pool\n"), 0o644))
	gitfixture.Git(t, base, "add", "-A")
	diff = filepath.Join(t.TempDir(), "gaie.patch")
	require.NoError(t, os.WriteFile(diff, []byte(gitfixture.Git(t, base, "diff", "--cached")+"\n"), 0o644))
	gitfixture.Git(t, base, "reset", "-q", "--hard")
	return diff, base
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

func TestPickOfAPlainDiffAppliesAsGitApplyDoes(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	diff, base := plainDiffOnV9(t, patches, cache)

	r := run(t, cache, "--patches", patches, "pick", "--version", "v9", "--author", "Ann Example <ann@example.com>",
		"--date", "2026-03-04T05:06:07+05:30", "--upstream-link", "https://example.com/dynamo", "--reason", "dynamo routes by model", diff)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "picked 0005-Apply-gaie.patch.patch into v9")
	written := filepath.Join(patches, "v9", "0005-Apply-gaie.patch.patch")
	text := readText(t, written)
	assert.Contains(t, text, "From: Ann Example <ann@example.com>\n")
	assert.Contains(t, text, "Subject: Apply gaie.patch\n")
	assert.Contains(t, text, "Upstream: https://example.com/dynamo\nReason: dynamo routes by model\n")

	// The tree epp-build applies is the tree git apply makes of the diff.
	gitfixture.Git(t, base, "apply", "--index", diff)
	want := gitfixture.Git(t, base, "write-tree")
	out := filepath.Join(t.TempDir(), "out")
	r = run(t, cache, "--patches", patches, "apply", "--version", "v9", "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, want, gitfixture.Git(t, out, "rev-parse", "HEAD^{tree}"))
	assert.Equal(t, "Ann Example\nann@example.com\nApply gaie.patch\n2026-03-04T05:06:07+05:30",
		gitfixture.Git(t, out, "log", "-1", "--format=%an%n%ae%n%s%n%aI"))

	// The file written is one plain git am takes.
	gitfixture.Git(t, base, "reset", "-q", "--hard")
	gitfixture.Git(t, base, "am", "-q", written)
	assert.Equal(t, want, gitfixture.Git(t, base, "rev-parse", "HEAD^{tree}"))
	assert.Equal(t, "Ann Example\nann@example.com\nApply gaie.patch", gitfixture.Git(t, base, "log", "-1", "--format=%an%n%ae%n%s"))
}

func TestPickOfAPlainDiffWithoutAnAuthorSaysWhichFlag(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	diff, _ := plainDiffOnV9(t, patches, cache)
	before := snapshot(t, patches)

	home := t.TempDir()
	r := runEnv(t, cache, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home}, "--patches", patches, "pick", "--version", "v9",
		"--upstream-link", "https://example.com/dynamo", "--reason", "r", diff)
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, `give --author "Name <email>"`)
	assert.Equal(t, before, snapshot(t, patches))

	r = runEnv(t, cache, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home}, "--patches", patches, "pick", "--version", "v9",
		"--author", "Ann\nEvil <x@example.com>", "--upstream-link", "https://example.com/dynamo", "--reason", "r", diff)
	assert.Equal(t, 4, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, `--author "Ann\nEvil <x@example.com>" has a control character`)
	assert.Equal(t, before, snapshot(t, patches))
}

func TestPickRefusesACommitWhoseMessageCarriesADiff(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	before := snapshot(t, patches)

	fix := gitfixture.NewAt(t, filepath.Join(t.TempDir(), "fixes"))
	fix.Git(t, "fetch", "-q", u.repo.Dir, "v1")
	fix.Git(t, "checkout", "-q", "FETCH_HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(fix.Dir, "d.txt"), []byte(gitfixture.NumberedLines("d", 20)+"appended by the fix\n"), 0o644))
	fix.Git(t, "commit", "-q", "-am", "Fix the tail of d\n\ndiff --git a/evil.txt b/evil.txt\nnew file mode 100644\n--- /dev/null\n+++ b/evil.txt\n@@ -0,0 +1 @@\n+owned")
	sha := fix.RevParse(t, "HEAD")

	r := run(t, cache, "--patches", patches, "pick", "--version", "v9", "--from", fix.Dir, "--upstream-link", "https://example.com/pull/1", "--reason", "r", sha)
	assert.Equal(t, 4, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "commit "+sha[:12]+": message line 3 \"diff --git a/evil.txt b/evil.txt\" starts a diff")
	assert.Equal(t, before, snapshot(t, patches), "nothing is written")
}

func TestPickOfADiffUAppliesAsGitApplyDoes(t *testing.T) {
	testenv.Tool(t, "diff", "the plain diff is made with diff -u")
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOnV1(t, u, patches, cache)
	base := filepath.Join(t.TempDir(), "base")
	r := run(t, cache, "--patches", patches, "apply", "--version", "v9", "--out", base)
	require.Equal(t, 0, r.code, r.stderr)

	// diff -u a b of a copy of the tree, as a plain diff -u user writes it.
	dirs := t.TempDir()
	original := readText(t, filepath.Join(base, "d.txt"))
	gitfixture.WriteFiles(t, dirs, map[string]string{"a/d.txt": original, "b/d.txt": strings.Replace(original, "d 10 line\n", "d 10 line\ninserted by dynamo\n", 1)})
	cmd := exec.Command("diff", "-u", "a/d.txt", "b/d.txt")
	cmd.Dir = dirs
	out, err := cmd.Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "diff exits 1 when the files differ")
	diff := filepath.Join(t.TempDir(), "dynamo.diff")
	require.NoError(t, os.WriteFile(diff, out, 0o644))

	r = run(t, cache, "--patches", patches, "pick", "--version", "v9", "--author", "Ann Example <ann@example.com>",
		"--upstream-link", "https://example.com/dynamo", "--reason", "r", diff)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	gitfixture.Git(t, base, "apply", "--index", diff)
	want := gitfixture.Git(t, base, "write-tree")
	applied := filepath.Join(t.TempDir(), "out")
	r = run(t, cache, "--patches", patches, "apply", "--version", "v9", "--out", applied)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, want, gitfixture.Git(t, applied, "rev-parse", "HEAD^{tree}"))
	assert.Equal(t, "Apply dynamo.diff", gitfixture.Git(t, applied, "log", "-1", "--format=%s"))
}
