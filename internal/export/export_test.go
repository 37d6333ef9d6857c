package export

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commit commits what is staged in dir as one author in a zone other than
// UTC, so the tests show that export writes each commit's Date as git does.
func commit(t testing.TB, dir, msg string) {
	t.Helper()
	gitfixture.Git(t, dir, "commit", "-q", "--author=Ada Author <ada@example.com>", "--date=2025-07-23T10:00:00+02:00", "-m", msg)
}

func write(t testing.TB, dir string, files map[string]string) {
	for name, content := range files {
		full := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
}

func lines(n int, word string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(word)
		b.WriteString(strings.Repeat(" x", i%5))
		b.WriteString("\n")
	}
	return b.String()
}

// TestExportMatchesGitFormatPatch checks that export writes what
// `git format-patch` with the stable flags writes, for the kinds of change
// a series holds, and that apply of those files then export reproduces
// them byte for byte.
func TestExportMatchesGitFormatPatch(t *testing.T) {
	dir := t.TempDir()
	gitfixture.Git(t, dir, "init", "-q", "-b", "main")
	write(t, dir, map[string]string{
		"main.go":      "package main\n\nfunc main() {\n" + lines(30, "\tprintln()") + "}\n\nfunc other() {\n" + lines(30, "\tprint()") + "}\n",
		"gone.txt":     "bye\n",
		"old/name.txt": lines(10, "moved"),
		"run.sh":       "#!/bin/sh\n",
		"blob.bin":     "\x00\x01binary",
		"nonl.txt":     "last",
	})
	gitfixture.Git(t, dir, "add", "-A")
	commit(t, dir, "upstream")
	base := gitfixture.Git(t, dir, "rev-parse", "HEAD")

	mainGo := "package main\n\nfunc main() {\n" + strings.Replace(lines(30, "\tprintln()"), "\tprintln() x x x\n", "\tprintln(\"changed\")\n", 2) +
		"}\n\nfunc other() {\n" + strings.Replace(lines(30, "\tprint()"), "\tprint() x\n", "\tprint(1)\n", 1) + "}\n"
	write(t, dir, map[string]string{"main.go": mainGo, "new/file.txt": "new\n", "blob.bin": "\x00\x02changed", "nonl.txt": "last line"})
	gitfixture.Git(t, dir, "rm", "-q", "gone.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "renamed"), 0o755))
	gitfixture.Git(t, dir, "mv", "old/name.txt", "renamed/name.txt")
	require.NoError(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	gitfixture.Git(t, dir, "add", "-A")
	commit(t, dir, "Touch everything\n\nBody explains why.\n\nUpstream: https://example.com/pr/1\nReason: backport")
	write(t, dir, map[string]string{"empty.txt": ""})
	gitfixture.Git(t, dir, "add", "-A")
	commit(t, dir, "Add an empty file")

	gitOut := t.TempDir()
	gitfixture.Git(t, dir, "format-patch", "-q", "--zero-commit", "--keep-subject", "--no-stat", "--no-signature",
		"--full-index", "--binary", "-M100%", "-o", gitOut, base+"..HEAD")
	gitfixture.Git(t, dir, "reset", "-q", "--hard", base)

	want := readDir(t, gitOut)
	var patches []*patchset.Patch
	for _, name := range sortedKeys(want) {
		ps, err := patchset.Parse(name, []byte(want[name]))
		require.NoError(t, err)
		patches = append(patches, ps...)
	}
	series, err := patchset.NewSeries(patches)
	require.NoError(t, err)
	res, err := patchset.ApplyToRepo(context.Background(), dir, series, patchset.Options{Branch: "series"})
	require.NoError(t, err)
	rec := &patchset.Record{Result: *res}
	for i := range rec.Patches {
		rec.Patches[i].File = sortedKeys(want)[i]
	}
	require.NoError(t, patchset.WriteRecord(dir, rec))

	got, err := Series(dir)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	for _, p := range got {
		// Binary literals are zlib streams; Go's deflate differs from C
		// zlib's, so only those lines may differ from git's.
		assert.Equal(t, withoutBinaryData(want[p.Name]), withoutBinaryData(string(p.Data)), "patch %s", p.Name)
	}

	// Round trip: apply what export wrote, export again, same bytes.
	gitfixture.Git(t, dir, "checkout", "-q", "--detach", base)
	gitfixture.Git(t, dir, "branch", "-q", "-D", "series")
	var again []*patchset.Patch
	for _, p := range got {
		ps, err := patchset.Parse(p.Name, p.Data)
		require.NoError(t, err)
		again = append(again, ps...)
	}
	series, err = patchset.NewSeries(again)
	require.NoError(t, err)
	res2, err := patchset.ApplyToRepo(context.Background(), dir, series, patchset.Options{Branch: "series"})
	require.NoError(t, err)
	assert.Equal(t, res.Head, res2.Head, "the same patches give the same commits")
	got2, err := Series(dir)
	require.NoError(t, err)
	assert.Equal(t, got, got2)
}

var binaryData = regexp.MustCompile(`(?m)^GIT binary patch\n(?:.*\n)*?\n(?:(?:literal|delta) .*\n(?:.*\n)*?\n)?`)

func withoutBinaryData(s string) string {
	return binaryData.ReplaceAllString(s, "GIT binary patch (data elided)\n")
}

func readDir(t testing.TB, dir string) map[string]string {
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	m := map[string]string{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		m[e.Name()] = string(data)
	}
	return m
}

func sortedKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestHunksMatchGit compares hunk grouping with git's for changes that
// sit at every distance around the merge threshold.
func TestHunksMatchGit(t *testing.T) {
	dir := t.TempDir()
	gitfixture.Git(t, dir, "init", "-q", "-b", "main")
	var old []string
	for i := 0; i < 80; i++ {
		old = append(old, fmt.Sprintf("line %d", i))
	}
	for gap := 4; gap <= 9; gap++ {
		changed := append([]string(nil), old...)
		changed[10] = "changed A"
		changed[11+gap] = "changed B"
		changed[0] = "first changed"
		changed[79] = "last changed"
		oldText, newText := strings.Join(old, "\n")+"\n", strings.Join(changed, "\n")+"\n"
		write(t, dir, map[string]string{"a": oldText, "b": newText})
		// Not gitfixture.Git: diff --no-index exits 1 when the files differ,
		// which they always do here.
		gitDiff, _ := exec.Command("git", "-C", dir, "diff", "--no-index", "a", "b").Output()
		var ours strings.Builder
		for _, f := range textFragments(oldText, newText) {
			ours.WriteString(shortCounts(f.String()))
		}
		hunksStart := strings.Index(string(gitDiff), "@@")
		assert.Equal(t, string(gitDiff)[hunksStart:], ours.String(), "gap %d", gap)
	}
}
