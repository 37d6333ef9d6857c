package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const docsPatch = `From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Ada Author <ada@example.com>
Date: Wed, 23 Jul 2025 10:00:00 +0200
Subject: Say hello in the docs

diff --git a/docs/a.txt b/docs/a.txt
index 0000000000000000000000000000000000000000..0000000000000000000000000000000000000000 100644
--- a/docs/a.txt
+++ b/docs/a.txt
@@ -1 +1,2 @@
 docs
+hello
`

const mainPatch = `From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Ada Author <ada@example.com>
Date: Wed, 23 Jul 2025 10:01:00 +0200
Subject: Print dynamo

diff --git a/src/main.go b/src/main.go
index 0000000000000000000000000000000000000000..0000000000000000000000000000000000000000 100644
--- a/src/main.go
+++ b/src/main.go
@@ -1,5 +1,5 @@
 package main
 
 func main() {
-	println("upstream")
+	println("dynamo")
 }
`

// protectedSeries is a recipe of two patches on the fixture upstream; none
// touches README.md.
func protectedSeries(t *testing.T, u upstream) string {
	return recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{
		"0001-docs.patch": []byte(docsPatch), "0002-main.patch": []byte(mainPatch),
	}, "0001-docs.patch", "0002-main.patch")
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// TestReapplyNeverLosesLocalWork walks issue 10's case: edits to a file no
// patch touches and an untracked file survive a re-apply of a changed
// series: refused without --force, kept in a backup with it.
func TestReapplyNeverLosesLocalWork(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)

	appendTo(t, filepath.Join(out, "README.md"), "my note\n")
	require.NoError(t, os.WriteFile(filepath.Join(out, "untracked.txt"), []byte("mine\n"), 0o644))
	changed := strings.Replace(mainPatch, `+	println("dynamo")`, `+	println("dynamo!")`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0002-main.patch"), []byte(changed), 0o644))

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	assert.Equal(t, 4, r.code, r.stderr)
	assert.Contains(t, r.stderr, "changed tracked files: README.md")
	assert.NotContains(t, r.stderr, "untracked.txt", "an untracked file is not a change: a re-apply keeps it")
	assert.Contains(t, r.stderr, "--force")
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(readme), "my note\n"), "the edit is still there")
	assert.FileExists(t, filepath.Join(out, "untracked.txt"))
	entries, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing but --out: no staging folder left")

	r = run(t, cache, "apply", "--recipe", dir, "--out", out, "--force")
	require.Equal(t, 0, r.code, r.stderr)
	m := regexp.MustCompile(`kept the previous tree with its local changes in (\S+)`).FindStringSubmatch(r.stderr)
	require.NotNil(t, m, r.stderr)
	backup := m[1]
	assert.True(t, strings.HasPrefix(backup, out+".epp-build-backup-"), backup)
	readme, err = os.ReadFile(filepath.Join(backup, "README.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(readme), "my note\n"), "the backup holds the edit")
	data, err := os.ReadFile(filepath.Join(backup, "untracked.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mine\n", string(data), "the backup holds the untracked file")

	assert.Equal(t, "mine\n", string(mustRead(t, filepath.Join(out, "untracked.txt"))), "as git checkout -f does, the untracked file stays")
	assert.Equal(t, "?? untracked.txt", gitfixture.Git(t, out, "status", "--porcelain", "--ignored"), "the new tree is the series and the untracked file")
	main, err := os.ReadFile(filepath.Join(out, "src/main.go"))
	require.NoError(t, err)
	assert.Contains(t, string(main), `println("dynamo!")`)
}

// TestReapplyRefusesEveryKindOfLocalChange checks each kind on its own,
// with a series change that makes apply rewrite the tree.
func TestReapplyRefusesEveryKindOfLocalChange(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	for name, tc := range map[string]struct {
		change func(t *testing.T, out string)
		want   string
	}{
		"deleted file": {func(t *testing.T, out string) { require.NoError(t, os.Remove(filepath.Join(out, "README.md"))) }, "changed tracked files: README.md"},
		"staged change": {func(t *testing.T, out string) {
			appendTo(t, filepath.Join(out, "README.md"), "x\n")
			gitfixture.Git(t, out, "add", "README.md")
		}, "changed tracked files: README.md"},
		"commit on top": {func(t *testing.T, out string) {
			appendTo(t, filepath.Join(out, "README.md"), "x\n")
			gitfixture.Git(t, out, "commit", "-q", "-am", "My own commit")
		}, `commits apply did not make: `},
		"commit on another branch": {func(t *testing.T, out string) {
			gitfixture.Git(t, out, "checkout", "-q", "-b", "mine")
			appendTo(t, filepath.Join(out, "README.md"), "x\n")
			gitfixture.Git(t, out, "commit", "-q", "-am", "My own commit")
			gitfixture.Git(t, out, "checkout", "-q", "epp-build/v9.9.9")
		}, `"My own commit"`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := protectedSeries(t, u)
			out := filepath.Join(t.TempDir(), "out")
			r := run(t, cache, "apply", "--recipe", dir, "--out", out)
			require.Equal(t, 0, r.code, r.stderr)
			tc.change(t, out)
			before := gitfixture.Git(t, out, "status", "--porcelain", "--ignored")

			require.NoError(t, os.Remove(filepath.Join(dir, "0002-main.patch")))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), bytes.Replace(mustRead(t, filepath.Join(dir, "recipe.yaml")), []byte("  - 0002-main.patch\n"), nil, 1), 0o644))
			r = run(t, cache, "apply", "--recipe", dir, "--out", out)
			assert.Equal(t, 4, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assert.Equal(t, before, gitfixture.Git(t, out, "status", "--porcelain", "--ignored"), "--out is as it was")
		})
	}
}

// TestRefusedReapplyAdviceWorks follows the advice a refused re-apply
// prints, word for word, and ends with the local work in the series and a
// clean re-apply.
func TestRefusedReapplyAdviceWorks(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)

	// A commit on top, then an edit and a new file not yet committed.
	appendTo(t, filepath.Join(out, "README.md"), "committed note\n")
	gitfixture.Git(t, out, "commit", "-q", "-am", "Add a note to the README")
	appendTo(t, filepath.Join(out, "README.md"), "uncommitted note\n")

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 4, r.code, r.stderr)
	assert.Contains(t, r.stderr, `"Add a note to the README"`)
	assert.Contains(t, r.stderr, "changed tracked files: README.md")

	// The advice: commit the rest, export into the recipe, apply again.
	commit := regexp.MustCompile("`(git -C \\S+ add -A) && (git -C \\S+ commit)`").FindStringSubmatch(r.stderr)
	require.NotNil(t, commit, r.stderr)
	gitfixture.Git(t, "", strings.Fields(commit[1])[1:]...)
	gitfixture.Git(t, "", append(strings.Fields(commit[2])[1:], "-q", "-m", "Add notes")...)
	export := regexp.MustCompile("`epp-build (export --dir \\S+ --to \\S+)`").FindStringSubmatch(r.stderr)
	require.NotNil(t, export, r.stderr)
	r = run(t, cache, strings.Fields(export[1])...)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "exported 4 patches")

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "re-applying: patch 0003-Add-a-note-to-the-README.patch is new")
	assert.NotContains(t, r.stderr, "kept the previous tree", "nothing needed a backup")
	readme := string(mustRead(t, filepath.Join(out, "README.md")))
	assert.True(t, strings.HasSuffix(readme, "committed note\nuncommitted note\n"), readme)
	assert.Equal(t, "Add notes", gitfixture.Git(t, out, "log", "-1", "--format=%s"))

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "already holds v9.9.9 (4 patches")
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}
