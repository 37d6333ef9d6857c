package patchset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// bigFile is n numbered lines of about 50 bytes.
func bigFile(n int, word string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s line %09d %s\n", word, i, strings.Repeat("x", 30))
	}
	return b.String()
}

// TestLargeHunksApplyThroughSpillFiles: a result above spillAbove streams
// to a file and from there into the pack and the work tree; a later patch
// reads it back. The outcome must be git's, bit for bit.
func TestLargeHunksApplyThroughSpillFiles(t *testing.T) {
	const n = 120_000 // about 6 MB, one hunk of about 12 MB
	require.Greater(t, len(bigFile(n, "new")), spillAbove, "the result must take the spill path")
	dir := baseRepo(t, map[string]string{"big.txt": bigFile(n, "base"), "small.txt": "small\n"})
	patches := seriesFromGit(t, dir, func() {
		gitfixture.WriteFiles(t, dir, map[string]string{"big.txt": bigFile(n, "new")})
		gitfixture.Git(t, dir, "commit", "-q", "-am", "Rewrite every line")
		again := strings.Replace(bigFile(n, "new"), fmt.Sprintf("new line %09d", n/2), "changed again", 1)
		gitfixture.WriteFiles(t, dir, map[string]string{"big.txt": again, "small.txt": "small changed\n"})
		require.NoError(t, os.Chmod(filepath.Join(dir, "big.txt"), 0o755))
		gitfixture.Git(t, dir, "commit", "-q", "-am", "Change one line of it again")
	})
	require.Len(t, patches, 2)
	require.Len(t, patches[0].Files[0].TextFragments, 1, "one hunk")

	_, err := applyPatchesToRepo(context.Background(), dir, patches, Options{Branch: "b"})
	require.NoError(t, err)
	assert.Equal(t, os.Getenv("EPP_WANT_TREE"), gitfixture.Git(t, dir, "rev-parse", "HEAD^{tree}"))
	assert.Empty(t, gitfixture.Git(t, dir, "status", "--porcelain"))
	assert.Empty(t, gitfixture.Git(t, dir, "fsck", "--strict", "--no-dangling"))
	assert.Equal(t, "100755", strings.Fields(gitfixture.Git(t, dir, "ls-files", "-s", "big.txt"))[0])
	spills, err := filepath.Glob(filepath.Join(dir, ".git", "epp-build-spill-*"))
	require.NoError(t, err)
	assert.Empty(t, spills, "spill files are gone once the series applied")
}

// TestParsingAllocatesPerHunkNotPerLine: hunk lines are substrings of the
// patch text, so a large hunk costs the patch's size once. A string per
// line (what a bufio.Reader gives go-gitdiff) doubles it.
func TestParsingAllocatesPerHunkNotPerLine(t *testing.T) {
	const n = 50_000
	var b strings.Builder
	b.WriteString("From: A <a@example.com>\nDate: Wed, 23 Jul 2025 10:00:00 +0000\nSubject: Big\n\n")
	fmt.Fprintf(&b, "diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -1,%d +1,%d @@\n", n, n)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "-old %d\n", i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "+new %d\n", i)
	}
	data := []byte(b.String())
	allocs := testing.AllocsPerRun(1, func() {
		_, err := Parse("big.patch", data)
		require.NoError(t, err)
	})
	assert.Less(t, allocs, float64(n/10), "allocations while parsing a hunk of %d lines", 2*n)
}

// TestLargeConflictIsReportedWithoutSearchingForever: where a conflicting
// hunk fits best is searched by comparing it at every line of the file,
// which for a large hunk and file would not end; it is skipped then, and
// the message still names the first line that differs.
func TestLargeConflictIsReportedWithoutSearchingForever(t *testing.T) {
	const n = 12_000
	src := bigFile(n, "base")
	lines := strings.SplitAfter(src, "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "From: A <a@example.com>\nDate: Wed, 23 Jul 2025 10:00:00 +0000\nSubject: Big\n\n")
	fmt.Fprintf(&b, "diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -1,%d +1,2 @@\n", n-1)
	for i, l := range lines[:n-2] {
		if i == n-3 {
			l = "not in the file\n"
		}
		b.WriteString("-" + l)
	}
	b.WriteString(" " + lines[n-2])
	b.WriteString("+replacement\n")
	patches, err := Parse("big.patch", []byte(b.String()))
	require.NoError(t, err)
	_, _, err = applyText(patches[0], patches[0].Files[0], []byte(src))
	var conflict *ConflictError
	require.ErrorAs(t, err, &conflict)
	assert.Contains(t, err.Error(), fmt.Sprintf("line %d: expected \"not in the file\"", n-2))
	assert.Contains(t, err.Error(), "too large to search for a nearest fit")
}
