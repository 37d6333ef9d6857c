package review

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files from the output")

// golden compares got with testdata/golden/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}

func fixtureLogs(t *testing.T) (a, b []Entry) {
	for i, v := range []string{"v1", "v2"} {
		r, err := recipe.LoadVersion(filepath.Join("testdata", "patches"), v)
		require.NoError(t, err)
		entries, err := Log(r)
		require.NoError(t, err)
		if i == 0 {
			a = entries
		} else {
			b = entries
		}
	}
	return a, b
}

func TestDiffSeriesTellsMovedFromSame(t *testing.T) {
	a, b := fixtureLogs(t)
	changes := DiffSeries(a, b)
	var labels []string
	for _, c := range changes {
		labels = append(labels, c.Label()+" "+c.Subject)
	}
	assert.Equal(t, []string{
		"same Route requests | by KV *cache*",
		"moved (+56) Fix the stream close",
		"dropped Backport \x1b[31mred\x1b[0m fix",
		"changed Register the plugins",
		"added Add the [example] config",
	}, labels)
	assert.Equal(t, []string{"stuck streams"}, changes[1].Reason)
	assert.True(t, Differ(changes))
	assert.False(t, Differ(DiffSeries(a, a)), "a series does not differ from itself")
	assert.False(t, Differ(changes[:2]), "a moved patch is the same change")
}

func TestMarkdownGolden(t *testing.T) {
	a, b := fixtureLogs(t)
	var out bytes.Buffer
	require.NoError(t, WriteLogMarkdown(&out, a))
	golden(t, "log-v1.md", out.Bytes())

	out.Reset()
	require.NoError(t, WriteLog(&out, "v1", a))
	golden(t, "log-v1.txt", out.Bytes())
	assert.NotContains(t, out.String(), "\x1b", "control characters are shown, not sent")

	out.Reset()
	require.NoError(t, WriteDiffMarkdown(&out, "v1", "v2", DiffSeries(a, b)))
	golden(t, "diff-series.md", out.Bytes())

	out.Reset()
	require.NoError(t, WriteDiff(&out, "v1", "v2", DiffSeries(a, b)))
	golden(t, "diff-series.txt", out.Bytes())
	assert.NotContains(t, out.String(), "\x1b", "control characters are shown, not sent")
}
