package main

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApplyProgress: plain progress names the fetch with its bytes and
// rate, then each patch; quiet (and -q) prints nothing at all on stderr.
func TestApplyProgress(t *testing.T) {
	u := newUpstream(t)
	dir := recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{"0001-a.patch": addFilePatch("a.txt")}, "0001-a.patch")

	r := run(t, t.TempDir(), "apply", "--recipe", dir, "--out", filepath.Join(t.TempDir(), "out"), "--progress", "plain")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, regexp.MustCompile(`(?m)^fetch `+regexp.QuoteMeta(u.url)+`: [0-9.]+ (B|KiB|MiB) in [0-9.]+m?s \([0-9.]+ (B|KiB|MiB)/s\), done\ncheck out [0-9a-f]{12}: done in [0-9.]+m?s\n\[1/1\] 0001-a.patch\n`), r.stderr)
	assert.NotContains(t, r.stderr, "\r")

	for _, quiet := range [][]string{{"-q"}, {"--progress", "quiet"}} {
		args := append([]string{"apply", "--recipe", dir, "--out", filepath.Join(t.TempDir(), "out")}, quiet...)
		r := run(t, t.TempDir(), args...)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Empty(t, r.stderr, "%v", quiet)
		assert.Contains(t, r.stdout, "applied 1 patches")
	}

	r = run(t, t.TempDir(), "check", "--recipe", dir, "--progress", "loud")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `--progress "loud": use auto, plain, quiet`)
}

// addFilePatch is a patch adding name with one line.
func addFilePatch(name string) []byte {
	return []byte(`From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Ada Author <ada@example.com>
Date: Wed, 23 Jul 2025 10:00:00 +0200
Subject: Add ` + name + `

diff --git a/` + name + ` b/` + name + `
new file mode 100644
index 0000000000000000000000000000000000000000..0000000000000000000000000000000000000000
--- /dev/null
+++ b/` + name + `
@@ -0,0 +1 @@
+added
`)
}
