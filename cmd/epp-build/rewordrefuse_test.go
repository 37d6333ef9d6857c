//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSeriesRewordRefusesWhatWouldNotRoundTrip: a new message that the
// patch file would not give back as written, or a --body-file that is not
// a bounded regular file, is refused input (exit 4) and nothing is written.
func TestSeriesRewordRefusesWhatWouldNotRoundTrip(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
	})
	before := snapshot(t, dir)
	fifo := filepath.Join(t.TempDir(), "body")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(t.TempDir(), "zero")
	require.NoError(t, os.Symlink("/dev/zero", zero))

	for name, c := range map[string]struct {
		args []string
		says string
	}{
		"a diff in the body":          {[]string{"--body", "See:\ndiff --git a/evil.txt b/evil.txt\nnew file mode 100644\n--- /dev/null\n+++ b/evil.txt\n@@ -0,0 +1 @@\n+owned"}, "starts a diff"},
		"a --- line in the body":      {[]string{"--body", "Why.\n---\nLost."}, `body line 2 "---" ends the message`},
		"an in-body header":           {[]string{"--body", "From: Else <else@example.org>\n\nWhy."}, "is an in-body header"},
		"a subject that is not UTF-8": {[]string{"--subject", "Route \xff a"}, "is not UTF-8"},
		"a FIFO as --body-file":       {[]string{"--body-file", fifo}, "is a FIFO"},
		"/dev/zero as --body-file":    {[]string{"--body-file", zero}, "is a character device"},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, cache, append([]string{"--patches", patches, "series", "reword", "--version", "v9", "1"}, c.args...)...)
			assert.Equal(t, 4, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, c.says)
			assert.Equal(t, before, snapshot(t, dir), "nothing is written")
		})
	}
}
