package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
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
	assert.Contains(t, r.stderr, `--progress "loud": use auto, plain, tty, quiet, rawjson`)
}

// TestProgressFromBUILDKIT_PROGRESS: the env chooses when --progress is not
// given, as for buildx; the flag wins over it; a bad value names the env.
func TestProgressFromBUILDKIT_PROGRESS(t *testing.T) {
	u := newUpstream(t)
	dir := recipeDir(t, u, "v1.0.0", u.commit, map[string][]byte{"0001-a.patch": addFilePatch("a.txt")}, "0001-a.patch")
	out := func() string { return filepath.Join(t.TempDir(), "out") }

	r := runEnv(t, t.TempDir(), []string{"BUILDKIT_PROGRESS=quiet"}, "apply", "--recipe", dir, "--out", out())
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)

	r = runEnv(t, t.TempDir(), []string{"BUILDKIT_PROGRESS=quiet"}, "apply", "--recipe", dir, "--out", out(), "--progress", "plain")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "[1/1] 0001-a.patch\n")

	r = runEnv(t, t.TempDir(), []string{"BUILDKIT_PROGRESS=rawjson"}, "apply", "--recipe", dir, "--out", out())
	require.Equal(t, 0, r.code, r.stderr)
	var events int
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if strings.HasPrefix(l, "{") {
			assert.True(t, json.Valid([]byte(l)), l)
			events++
		}
	}
	assert.GreaterOrEqual(t, events, 3, "fetch, check out, patch: %s", r.stderr)
	assert.Contains(t, r.stderr, `"event":"line","text":"[1/1] 0001-a.patch"}`)

	r = runEnv(t, t.TempDir(), []string{"BUILDKIT_PROGRESS=fancy"}, "check", "--recipe", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `BUILDKIT_PROGRESS "fancy": use auto, plain, tty, quiet, rawjson`)

	r = run(t, t.TempDir(), "apply", "--recipe", dir, "--out", out(), "-q", "--progress", "plain")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "-q and --progress plain both given")
}

// TestProgressFitsAnEightyColumnTerminal runs apply on a pseudo-terminal
// 80 columns wide (and COLUMNS=80), fetching from a URL longer than that:
// no line the terminal shows is wider; with TERM=dumb stderr holds plain
// lines with no escape sequence, the URL whole.
func TestProgressFitsAnEightyColumnTerminal(t *testing.T) {
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "gaie-"+strings.Repeat("x", 120)))
	commit := repo.Commit(t, "release", map[string]string{"README.md": "upstream\n"})
	repo.Tag(t, "v1.0.0", commit, true)
	u := upstream{repo: repo, url: repo.HTTPURL(gitfixture.ServeHTTP(t, root)), commit: commit}
	require.Greater(t, len(u.url), 120)
	dir := recipeDir(t, u, "v1.0.0", commit, map[string][]byte{"0001-a.patch": addFilePatch("a.txt")}, "0001-a.patch")

	onTerminal := func(term string) string {
		p := testutil.NewPty(t, 80)
		cmd := exec.Command(binary, "apply", "--recipe", dir, "--out", filepath.Join(t.TempDir(), "out"))
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "GOPROXY=off", "COLUMNS=80", "BUILDKIT_PROGRESS=", "TERM="+term)
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, p.Term
		require.NoError(t, cmd.Run())
		assert.Contains(t, stdout.String(), "applied 1 patches")
		return p.Output(t)
	}

	live := onTerminal("xterm")
	for _, l := range regexp.MustCompile(`\r|\n`).Split(strings.ReplaceAll(live, "\x1b[K", ""), -1) {
		assert.LessOrEqual(t, progress.Columns(l), 80, "%q", l)
	}
	assert.Contains(t, live, "…", "the fetch line was cut to fit")
	assert.Contains(t, live, "[1/1] 0001-a.patch\n")

	dumb := onTerminal("dumb")
	assert.NotContains(t, dumb, "\x1b")
	assert.NotContains(t, dumb, "\r")
	assert.Contains(t, dumb, "fetch "+u.url+": ")
}

// TestEveryCommandThatFetchesTakesProgressAndQ: the same two flags, with
// -q, on every command that shows the fetch's progress.
func TestEveryCommandThatFetchesTakesProgressAndQ(t *testing.T) {
	root := newRootCommand()
	for _, path := range [][]string{{"apply"}, {"check"}, {"regen"}, {"build"}, {"pick"}, {"rebase"},
		{"series", "reword"}, {"series", "drop"}, {"series", "move"}, {"series", "squash"}} {
		c, _, err := root.Find(path)
		require.NoError(t, err, path)
		require.NotNil(t, c.Flags().Lookup("progress"), "%v has --progress", path)
		q := c.Flags().Lookup("quiet")
		require.NotNil(t, q, "%v has --quiet", path)
		assert.Equal(t, "q", q.Shorthand, path)
		assert.Contains(t, c.Flags().FlagUsages(), "rawjson", path)
	}
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
