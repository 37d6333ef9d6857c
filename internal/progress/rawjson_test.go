package progress

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRawJSONWritesOneObjectALine(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0).UTC()}
	r := newReporter(&out, RawJSON, clock.now, columns(80))
	task := r.Start("fetch https://example.invalid/gaie.git", 4096)
	clock.advance(TerminalInterval)
	task.Add(1024)
	clock.advance(TerminalInterval / 2)
	task.Add(1024) // too soon: no event
	r.Linef("notice: %s", "the cache entry was dropped")
	clock.advance(TerminalInterval)
	task.Done()
	failed := r.Start("download m@v1.zip", 0)
	failed.Abort()

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 4, out.String())
	var events []map[string]any
	for _, l := range lines {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &e), l)
		events = append(events, e)
	}
	assert.Equal(t, map[string]any{"time": "1970-01-01T00:16:40.1Z", "event": "progress",
		"task": "fetch https://example.invalid/gaie.git", "bytes": 1024.0, "total": 4096.0, "rate": 10240.0}, events[0])
	assert.Equal(t, "line", events[1]["event"])
	assert.Equal(t, "notice: the cache entry was dropped", events[1]["text"])
	assert.Equal(t, "done", events[2]["event"])
	assert.Equal(t, 2048.0, events[2]["bytes"])
	assert.InDelta(t, 0.25, events[2]["seconds"], 1e-9)
	assert.Equal(t, map[string]any{"time": "1970-01-01T00:16:40.25Z", "event": "abort", "task": "download m@v1.zip", "bytes": 0.0}, events[3])
	assert.NotContains(t, out.String(), "\r")
}
