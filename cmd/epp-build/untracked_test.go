package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const newFilePatch = `From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Ada Author <ada@example.com>
Date: Wed, 23 Jul 2025 10:02:00 +0200
Subject: Add the notes

diff --git a/NOTES.md b/NOTES.md
new file mode 100644
index 0000000000000000000000000000000000000000..0000000000000000000000000000000000000000
--- /dev/null
+++ b/NOTES.md
@@ -0,0 +1 @@
+notes of the series
`

// userFiles puts files apply did not make into out, as a local build
// does: an ignored log, an untracked go.work.sum and a binary in bin/.
func userFiles(t *testing.T, out string) map[string]string {
	files := map[string]string{"build.log": "log\n", "go.work.sum": "sums\n", "bin/epp": "binary\n"}
	require.NoError(t, os.WriteFile(filepath.Join(out, ".git", "info", "exclude"), []byte("*.log\n"), 0o644))
	gitfixture.WriteFiles(t, out, files)
	return files
}

func assertFiles(t *testing.T, out string, files map[string]string, msg string) {
	t.Helper()
	for name, want := range files {
		data, err := os.ReadFile(filepath.Join(out, name))
		if assert.NoError(t, err, msg) {
			assert.Equal(t, want, string(data), "%s: %s", msg, name)
		}
	}
}

// TestReapplyKeepsUntrackedAndIgnoredFilesAsGitCheckoutDoes: a tree with
// the user's untracked and ignored files is already applied when nothing
// changed, and a changed series re-applies around them.
func TestReapplyKeepsUntrackedAndIgnoredFilesAsGitCheckoutDoes(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	files := userFiles(t, out)

	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "already applied")
	assertFiles(t, out, files, "already applied")

	// A changed patch: re-applied in place, the files stay.
	changed := strings.Replace(mainPatch, `+	println("dynamo")`, `+	println("dynamo!")`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0002-main.patch"), []byte(changed), 0o644))
	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, string(mustRead(t, filepath.Join(out, "src", "main.go"))), `println("dynamo!")`)
	assertFiles(t, out, files, "re-applied in place")

	// Another upstream commit: a new tree, the files carried into it.
	u2 := u.repo.Commit(t, "upstream 2", map[string]string{"docs/b.txt": "more docs\n"})
	text := bytes.ReplaceAll(mustRead(t, filepath.Join(dir, "recipe.yaml")), []byte(u.commit), []byte(u2))
	text = bytes.Replace(text, []byte("ref: v1.0.0"), []byte("ref: "+u2), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), text, 0o644))
	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.FileExists(t, filepath.Join(out, "docs", "b.txt"))
	assertFiles(t, out, files, "re-applied onto another upstream")
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=no"))
	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "already applied")
}

// TestReapplyRefusesToOverwriteAnUntrackedFile names the file a new patch
// would write over, and changes nothing.
func TestReapplyRefusesToOverwriteAnUntrackedFile(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	dir := protectedSeries(t, u)
	out := filepath.Join(t.TempDir(), "out")
	r := run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	gitfixture.WriteFiles(t, out, map[string]string{"NOTES.md": "my own notes\n"})

	require.NoError(t, os.WriteFile(filepath.Join(dir, "0003-notes.patch"), []byte(newFilePatch), 0o644))
	appendTo(t, filepath.Join(dir, "recipe.yaml"), "  - 0003-notes.patch\n")
	before := gitfixture.Git(t, out, "status", "--porcelain", "--ignored")
	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	assert.Equal(t, 4, r.code, r.stderr)
	assert.Contains(t, r.stderr, "would overwrite untracked file(s) of yours: NOTES.md")
	assert.Contains(t, r.stderr, "Move or delete them")
	assert.Equal(t, before, gitfixture.Git(t, out, "status", "--porcelain", "--ignored"), "--out is as it was")
	assert.Equal(t, "my own notes\n", string(mustRead(t, filepath.Join(out, "NOTES.md"))))

	require.NoError(t, os.Remove(filepath.Join(out, "NOTES.md")))
	r = run(t, cache, "apply", "--recipe", dir, "--out", out)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "notes of the series\n", string(mustRead(t, filepath.Join(out, "NOTES.md"))))
}
