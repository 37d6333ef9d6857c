//go:build e2e

package bench

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// largeHunk is an upstream with one big file and a patch that rewrites
// every line of it in a single hunk, made once per bench run.
var largeHunk struct {
	once              sync.Once
	repo, recipe, err string
	patch             string
	patchMB           float64
}

// hunkMB is the size of the hunk (EPP_BENCH_HUNK_MB, default 200).
func hunkMB() int {
	if n, err := strconv.Atoi(os.Getenv("EPP_BENCH_HUNK_MB")); err == nil && n > 0 {
		return n
	}
	return 200
}

// BenchmarkLargeHunkMemory: peak RSS of `epp-build apply` (warm cache) of
// a patch that is one hunk of about 200 MB, beside the peak of `git apply`
// of the same patch on a checkout of the same commit. Goal: ratio <= 1.
func BenchmarkLargeHunkMemory(b *testing.B) {
	largeHunk.once.Do(func() { makeLargeHunk(b, filepath.Join(filepath.Dir(binary), "large-hunk"), hunkMB()) })
	if largeHunk.err != "" {
		b.Fatal(largeHunk.err)
	}
	cache := filepath.Join(b.TempDir(), "cache")
	eppPath := func(recipe, out string) float64 {
		_, rss := timed(b, nil, binary, "apply", "--recipe", recipe, "--out", out,
			"--source", "path", "--upstream", largeHunk.repo, "--cache-dir", cache, "--quiet")
		return rss
	}
	// Fill the cache with the upstream alone: the fetch is not what is
	// measured, the apply is.
	eppPath(filepath.Join(filepath.Dir(largeHunk.recipe), "empty"), filepath.Join(b.TempDir(), "prime"))
	var ours, theirs float64
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		ours = max(ours, eppPath(largeHunk.recipe, filepath.Join(tmp, "epp")))
		b.StopTimer()
		gitfixture.Git(b, "", "clone", "-q", largeHunk.repo, filepath.Join(tmp, "git"))
		b.StartTimer()
		_, rss := timed(b, nil, "git", "-C", filepath.Join(tmp, "git"), "apply", largeHunk.patch)
		theirs = max(theirs, rss)
	}
	b.ReportMetric(largeHunk.patchMB, "patch-MB")
	b.ReportMetric(ours, "epp-build-peak-MB")
	b.ReportMetric(theirs, "git-apply-peak-MB")
	b.ReportMetric(ours/theirs, "epp/git-peak-ratio")
}

// makeLargeHunk writes the upstream (a file of mb/2 MB, tagged v1) and a
// recipe whose one patch replaces every line of it, as git format-patch
// would write it (but without running a diff over it, which takes long).
func makeLargeHunk(b *testing.B, dir string, mb int) {
	fail := func(err error) { largeHunk.err = err.Error() }
	lines := mb * 1_000_000 / 100 // 50-byte lines, each removed and added
	repo := filepath.Join(dir, "upstream")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		fail(err)
		return
	}
	line := func(word string, i int) string {
		return fmt.Sprintf("%-4s line %09d %s\n", word, i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxx")
	}
	oldID, err := writeLines(filepath.Join(repo, "big.txt"), lines, func(i int) string { return line("base", i) })
	if err != nil {
		fail(err)
		return
	}
	gitfixture.Git(b, repo, "init", "-q", "-b", "main")
	gitfixture.Git(b, repo, "add", "big.txt")
	gitfixture.Git(b, repo, "commit", "-q", "-m", "upstream")
	gitfixture.Git(b, repo, "tag", "v1")
	newID, err := blobID(lines, func(i int) string { return line("new", i) })
	if err != nil {
		fail(err)
		return
	}

	recipe := filepath.Join(dir, "v1.0.0")
	patch := filepath.Join(recipe, "0001-Rewrite-every-line.patch")
	if err := os.MkdirAll(recipe, 0o755); err != nil {
		fail(err)
		return
	}
	f, err := os.Create(patch)
	if err != nil {
		fail(err)
		return
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nFrom: Bench <bench@example.com>\nDate: Wed, 23 Jul 2025 10:00:00 +0000\nSubject: [PATCH] Rewrite every line\n\n---\n")
	fmt.Fprintf(w, "diff --git a/big.txt b/big.txt\nindex %s..%s 100644\n--- a/big.txt\n+++ b/big.txt\n@@ -1,%d +1,%d @@\n", oldID, newID, lines, lines)
	for i := 0; i < lines; i++ {
		w.WriteString("-" + line("base", i))
	}
	for i := 0; i < lines; i++ {
		w.WriteString("+" + line("new", i))
	}
	w.WriteString("-- \n2.39.5\n\n")
	if err := w.Flush(); err != nil {
		fail(err)
		return
	}
	if err := f.Close(); err != nil {
		fail(err)
		return
	}
	fi, err := os.Stat(patch)
	if err != nil {
		fail(err)
		return
	}
	commit := gitfixture.Git(b, repo, "rev-parse", "HEAD")
	pin := fmt.Sprintf("upstream:\n  repository: https://example.invalid/upstream.git\n  ref: v1\n  commit: %s\n", commit)
	for name, list := range map[string]string{"v1.0.0": "  - " + filepath.Base(patch) + "\n", "empty": "  []\n"} {
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			fail(err)
			return
		}
		if err := os.WriteFile(filepath.Join(d, "recipe.yaml"), []byte(pin+"patches:\n"+list), 0o644); err != nil {
			fail(err)
			return
		}
	}
	largeHunk.repo, largeHunk.recipe, largeHunk.patch = repo, recipe, patch
	largeHunk.patchMB = float64(fi.Size()) / 1e6
}

// writeLines writes n lines to name and returns the file's git blob id.
func writeLines(name string, n int, line func(int) string) (string, error) {
	f, err := os.Create(name)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < n; i++ {
		w.WriteString(line(i))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return blobID(n, line)
}

// blobID is the git blob id of n lines, computed without holding them.
func blobID(n int, line func(int) string) (string, error) {
	size := 0
	for i := 0; i < n; i++ {
		size += len(line(i))
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", size)
	for i := 0; i < n; i++ {
		if _, err := io.WriteString(h, line(i)); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
