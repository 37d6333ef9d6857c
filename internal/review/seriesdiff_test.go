package review

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// movedFixture is testdata/patches with v2 pinned at another upstream
// commit, so that comparing v1 and v2 reads the history.
func movedFixture(t *testing.T) string {
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("testdata", "patches"))))
	path := filepath.Join(root, "v2", "recipe.yaml")
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	moved := strings.ReplaceAll(string(text), "978c23bb96cce25f11cea2421523cb479026e2e9", strings.Repeat("1", 40))
	require.NotEqual(t, string(text), moved)
	require.NoError(t, os.WriteFile(path, []byte(moved), 0o644))
	return root
}

// unreachable is a history that fails as a fetch of a host that does not
// resolve fails: a long message whose cause is at its end.
func unreachable(context.Context, string, string, string, []string) ([]source.Commit, error) {
	return nil, fmt.Errorf("fetch the history of https://example.com/gaie.git up to 978c23bb96cc, 111111111111: %w",
		fmt.Errorf("git fetch: fatal: unable to access 'https://example.com/%s/gaie.git/': Could not resolve host: example.com", strings.Repeat("long/", 20)))
}

func TestAnUnreadableHistoryIsANoticeNotTheDocument(t *testing.T) {
	d, err := CompareVersions(context.Background(), movedFixture(t), "v1", "v2", unreachable)
	require.NoError(t, err)
	require.True(t, d.Pins.Upstream.Moved)
	assert.False(t, d.Pins.Upstream.HistoryRead)

	var md, text bytes.Buffer
	require.NoError(t, WriteSeriesDiffMarkdown(&md, d))
	require.NoError(t, WriteSeriesDiff(&text, d))
	for _, out := range []string{md.String(), text.String()} {
		assert.NotContains(t, out, "could not be read", "the document is the result only")
		assert.NotContains(t, out, "resolve host")
		assert.Contains(t, out, "Route requests")
	}

	notices := d.Pins.Notices()
	require.Len(t, notices, 1)
	assert.True(t, strings.HasSuffix(notices[0].Line, "Could not resolve host: example.com"), "the notice keeps the cause: %s", notices[0].Line)
	var stderr bytes.Buffer
	require.NoError(t, outfmt.WriteNotices(&stderr, false, notices))
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())
	assert.LessOrEqual(t, len(stderr.String())-1, outfmt.NoticeWidth, stderr.String())

	// The JSON document carries the pins and the whole note.
	doc, err := json.Marshal(d)
	require.NoError(t, err)
	var got struct {
		Pins struct {
			Upstream struct {
				HistoryNote string `json:"historyNote"`
			} `json:"upstream"`
		} `json:"pins"`
		Patches []map[string]any `json:"patches"`
	}
	require.NoError(t, json.Unmarshal(doc, &got))
	assert.Contains(t, got.Pins.Upstream.HistoryNote, "the upstream history could not be read: fetch the history of https://example.com/gaie.git")
	assert.Contains(t, got.Pins.Upstream.HistoryNote, "Could not resolve host: example.com")
	assert.NotEmpty(t, got.Patches)
}

func TestASeriesDiffOfEmptySeriesHasAnEmptyList(t *testing.T) {
	doc, err := json.Marshal(&SeriesDiff{Patches: DiffSeries(nil, nil)})
	require.NoError(t, err)
	assert.Contains(t, string(doc), `"patches":[]`)
}

func TestDiffSeriesTextFitsATerminal(t *testing.T) {
	a, b := fixtureLogs(t)
	long := Change{Kind: "same", Subject: "a subject", Old: "0001-a.patch", New: "0001-a.patch",
		Reason: []string{strings.Repeat("a reason that goes on and on ", 12)}, Upstream: []string{"https://github.com/example/gaie/pull/12"}}
	var out bytes.Buffer
	require.NoError(t, WriteDiff(&out, "v1.5.0-dyn", "v1.4.2", append(DiffSeries(a, b), long)))
	text, _, _ := strings.Cut(out.String(), "\ninterdiff of")
	for _, line := range strings.Split(text, "\n") {
		assert.LessOrEqual(t, len(line), 120, "%q", line)
	}
	assert.Contains(t, text, "\n             reason:     a reason that goes on and on")
}
