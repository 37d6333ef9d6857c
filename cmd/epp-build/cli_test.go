package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var binary string

// TestMain builds the command once; the tests run it as a user would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "epp-build-cli-test-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "epp-build")
	// -buildvcs=auto overrides a GOFLAGS=-buildvcs=false, so the binary
	// names the commit it was built from, as a release build does.
	if out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binary, ".").CombinedOutput(); err != nil {
		panic("build epp-build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs epp-build with its own cache folder.
func run(t *testing.T, cache string, args ...string) result {
	t.Helper()
	return runEnv(t, cache, nil, args...)
}

// runBound is the longest one command of these tests may take (a cold
// build of the C API double included): past it the command is killed and
// the test fails as a hang, instead of the test binary waiting for its
// own timeout.
const runBound = 15 * time.Minute

// runEnv is run with more environment variables (later ones win).
func runEnv(t *testing.T, cache string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache, "GOPROXY=off"), env...)
	cmd.WaitDelay = 10 * time.Second // a child holding the pipes open does not hold the test
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("epp-build %s did not end within %v: it hangs; stderr so far:\n%s", strings.Join(args, " "), runBound, errb.String())
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// upstream is a fixture upstream with an annotated tag v1.0.0.
type upstream struct {
	repo   *gitfixture.Repo
	url    string
	commit string
}

func newUpstream(t *testing.T) upstream {
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "gaie"))
	repo.Commit(t, "initial", map[string]string{"README.md": "old\n"})
	commit := repo.Commit(t, "release", map[string]string{
		"README.md":   "# Fixture\nline one\nline two\nline three\nline four\nline five\n",
		"src/main.go": "package main\n\nfunc main() {\n\tprintln(\"upstream\")\n}\n",
		"docs/a.txt":  "docs\n",
	})
	repo.Symlink(t, "link", "src")
	commit = repo.Commit(t, "add link", nil)
	repo.Tag(t, "v1.0.0", commit, true)
	return upstream{repo: repo, url: repo.HTTPURL(gitfixture.ServeHTTP(t, root)), commit: commit}
}

// recipeDir writes a recipe pinning u at ref with the given patch files.
func recipeDir(t *testing.T, u upstream, ref, commit string, patches map[string][]byte, order ...string) string {
	dir := filepath.Join(t.TempDir(), "v9.9.9")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var list strings.Builder
	for _, name := range order {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), patches[name], 0o644))
		list.WriteString("  - " + name + "\n")
	}
	if len(order) == 0 {
		list.WriteString("  []\n")
	}
	recipe := "upstream:\n  repository: " + u.url + "\n  ref: " + ref + "\n  commit: " + commit + "\npatches:\n" + list.String()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(recipe), 0o644))
	return dir
}

func TestApplyEditExportCheckRoundTrip(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	empty := recipeDir(t, u, "v1.0.0", u.commit, nil)

	// A release engineer applies the (empty) series and commits changes.
	work := filepath.Join(t.TempDir(), "work")
	r := run(t, cache, "apply", "--recipe", empty, "--out", work, "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, u.commit, gitfixture.Git(t, work, "rev-parse", "refs/epp-build/upstream"), "the base ref is the pinned commit")
	require.NoError(t, os.WriteFile(filepath.Join(work, "src/main.go"), []byte("package main\n\nfunc main() {\n\tprintln(\"dynamo\")\n}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(work, "src/plugin.go"), []byte("package main\n"), 0o644))
	gitfixture.Git(t, work, "add", "-A")
	gitfixture.Git(t, work, "commit", "-q", "-m", "Add the plugin\n\nWhy it is needed.\n\nUpstream: https://example.com/pull/1\nReason: Dynamo routing")
	require.NoError(t, os.Remove(filepath.Join(work, "docs/a.txt")))
	gitfixture.Git(t, work, "add", "-A")
	gitfixture.Git(t, work, "commit", "-q", "-m", "Drop the docs")

	// export writes the series into the recipe; check then passes.
	r = run(t, cache, "export", "--dir", work, "--to", empty)
	require.Equal(t, 0, r.code, r.stderr)
	names, _ := filepath.Glob(filepath.Join(empty, "*.patch"))
	require.Len(t, names, 2)
	recipeText, err := os.ReadFile(filepath.Join(empty, "recipe.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(recipeText), "- 0001-Add-the-plugin.patch\n  - 0002-Drop-the-docs.patch")
	r = run(t, cache, "check", "--recipe", empty, "--source", "git")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "2 patches up to date")

	// apply of the exported series gives the same tree; export is byte-stable.
	again := filepath.Join(t.TempDir(), "again")
	r = run(t, cache, "apply", "--recipe", empty, "--out", again, "--source", "git")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, gitfixture.Git(t, work, "rev-parse", "HEAD^{tree}"), gitfixture.Git(t, again, "rev-parse", "HEAD^{tree}"))
	assert.Equal(t, "Add the plugin\n\nWhy it is needed.\n\nUpstream: https://example.com/pull/1\nReason: Dynamo routing", gitfixture.Git(t, again, "log", "-1", "--format=%B", "HEAD~1"))
	assert.Empty(t, gitfixture.Git(t, again, "status", "--porcelain"))
	first, err := os.ReadFile(names[0])
	require.NoError(t, err)
	r = run(t, cache, "export", "--dir", again)
	require.Equal(t, 0, r.code, r.stderr)
	assert.True(t, strings.HasPrefix(r.stdout, string(first)), "export to stdout prints the same bytes")

	// The exported files are plain git format-patch: git am takes them.
	plain := filepath.Join(t.TempDir(), "plain")
	gitfixture.Git(t, filepath.Dir(plain), "clone", "-q", u.repo.Dir, plain)
	gitfixture.Git(t, plain, "checkout", "-q", u.commit)
	gitfixture.Git(t, plain, append([]string{"am", "-q"}, names...)...)
	assert.Equal(t, gitfixture.Git(t, again, "rev-parse", "HEAD^{tree}"), gitfixture.Git(t, plain, "rev-parse", "HEAD^{tree}"))

	// A patch written by plain git format-patch (with its version
	// signature) applies but is not what export writes: check names it.
	require.NoError(t, os.WriteFile(names[0], append(first, "-- \n2.39.5\n\n"...), 0o644))
	r = run(t, cache, "check", "--recipe", empty, "--source", "git")
	assert.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, filepath.Base(names[0])+": committed file differs from what export produces")
	assert.NotContains(t, r.stderr, filepath.Base(names[1]))
}

func TestReapplyTellsWhetherAndWhy(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	patch := []byte(`From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Ada Author <ada@example.com>
Date: Wed, 23 Jul 2025 10:00:00 +0200
Subject: Say hello

diff --git a/docs/a.txt b/docs/a.txt
index 0000000000000000000000000000000000000000..0000000000000000000000000000000000000000 100644
--- a/docs/a.txt
+++ b/docs/a.txt
@@ -1 +1,2 @@
 docs
+hello
`)
	dir := recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{"0001-hello.patch": patch}, "0001-hello.patch")
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	head := gitfixture.Git(t, out, "rev-parse", "HEAD")

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "already applied: ")
	assert.Contains(t, r.stdout, "already holds v9.9.9 (1 patches")
	assert.Equal(t, head, gitfixture.Git(t, out, "rev-parse", "HEAD"), "nothing was re-applied")

	changed := bytes.Replace(patch, []byte("+hello"), []byte("+hello there"), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0001-hello.patch"), changed, 0o644))
	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "re-applying: patch 0001-hello.patch changed (sha256 ")
	data, err := os.ReadFile(filepath.Join(out, "docs/a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "docs\nhello there\n", string(data))

	require.NoError(t, os.WriteFile(filepath.Join(out, "docs/a.txt"), []byte("my edit\n"), 0o644))
	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	assert.Equal(t, 4, r.code)
	assert.Contains(t, r.stderr, "holds changes a re-apply would lose (changed tracked files: docs/a.txt)")
	data, _ = os.ReadFile(filepath.Join(out, "docs/a.txt"))
	assert.Equal(t, "my edit\n", string(data), "the user's edit is kept")
}

func TestPinsAreVerified(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	light := u.repo.Commit(t, "later", map[string]string{"later.txt": "later\n"})
	u.repo.Tag(t, "v1.1.0-light", light, false)
	u.repo.AllowFetchBySHA(t)

	for _, tc := range []struct{ name, ref, commit, url string }{
		{"annotated tag over http", "v1.0.0", u.commit, u.url},
		{"annotated tag over file", "v1.0.0", u.commit, u.repo.FileURL()},
		{"lightweight tag", "v1.1.0-light", light, u.url},
		{"commit pin", u.commit, u.commit, u.url},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := recipeDir(t, upstream{url: tc.url}, tc.ref, tc.commit, nil)
			out := filepath.Join(t.TempDir(), "out")
			r := run(t, cache, "apply", "--recipe", dir, "--out", out, "--source", "git")
			require.Equal(t, 0, r.code, r.stderr)
			assert.Equal(t, tc.commit, gitfixture.Git(t, out, "rev-parse", "HEAD"))
		})
	}

	t.Run("tag moved to another commit", func(t *testing.T) {
		u.repo.MoveTag(t, "v1.0.0", light, true)
		dir := recipeDir(t, u, "v1.0.0", u.commit, nil)
		out := filepath.Join(t.TempDir(), "out")
		r := run(t, t.TempDir(), "apply", "--recipe", dir, "--out", out, "--source", "git")
		assert.Equal(t, 5, r.code, r.stderr)
		assert.Contains(t, r.stderr, u.commit)
		assert.Contains(t, r.stderr, light)
		assert.NoDirExists(t, out)
	})
}

func TestHostilePatchesAreRefusedAndWriteNothing(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	corpus := filepath.Join("..", "..", "testdata", "hostile")
	cases := loadCases(t, filepath.Join(corpus, "cases.json"))
	require.NotEmpty(t, cases)
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpus, name))
			require.NoError(t, err)
			dir := recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{name: data}, name)
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			r := run(t, cache, "apply", "--recipe", dir, "--out", out)
			assert.Equal(t, want.Exit, r.code, r.stderr)
			for _, w := range want.Want {
				assert.Contains(t, r.stderr, w)
			}
			entries, err := os.ReadDir(parent)
			require.NoError(t, err)
			assert.Empty(t, entries, "nothing is left beside --out")
			_, err = os.Lstat(filepath.Join(u.repo.Dir, "..", "outside.txt"))
			assert.True(t, os.IsNotExist(err))
		})
	}
}
