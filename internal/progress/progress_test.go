package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// columns is a terminal n columns wide.
func columns(n int) func() int { return func() int { return n } }

// fakeClock moves only when the test says so.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestPlainLinesAreRateLimitedAndEndWithTheTotal(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := newReporter(&out, Plain, clock.now, columns(80))
	task := r.Start("fetch https://example.invalid/gaie.git", 3<<20)
	task.Write(make([]byte, 1<<20)) // at once: no line yet
	assert.Empty(t, out.String())
	clock.advance(PlainInterval)
	task.Write(make([]byte, 1<<20))
	clock.advance(time.Second) // within the interval: no new line
	task.Add(512 << 10)
	clock.advance(time.Second)
	task.Add(512 << 10)
	clock.advance(time.Second)
	task.Done()
	task.Done() // once only
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 3, out.String())
	assert.Equal(t, "fetch https://example.invalid/gaie.git: 2.0 MiB / 3.0 MiB (1.0 MiB/s)", lines[0])
	assert.Equal(t, "fetch https://example.invalid/gaie.git: 3.0 MiB / 3.0 MiB (768.0 KiB/s)", lines[1])
	assert.Equal(t, "fetch https://example.invalid/gaie.git: 3.0 MiB in 5s (614.4 KiB/s), done", lines[2])
	assert.NotContains(t, out.String(), "\r", "plain output is for logs: no carriage returns")
}

func TestTerminalRewritesOneLiveLine(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := newReporter(&out, Terminal, clock.now, columns(80))
	task := r.Start("download m@v1.zip", 0)
	clock.advance(TerminalInterval)
	task.Add(2048)
	clock.advance(TerminalInterval / 2)
	task.Add(2048) // too soon: not drawn
	clock.advance(TerminalInterval)
	task.Add(2048)
	r.Linef("[1/2] 0001-a.patch")
	task.Done()
	assert.Equal(t,
		"download m@v1.zip: 2.0 KiB (20.0 KiB/s)"+
			"\r\x1b[Kdownload m@v1.zip: 6.0 KiB (24.0 KiB/s)"+
			"\r\x1b[K[1/2] 0001-a.patch\n"+
			"download m@v1.zip: 6.0 KiB in 250ms (24.0 KiB/s), done\n",
		out.String())
}

func TestQuietReportsNothing(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, Quiet)
	require.Nil(t, r)
	task := r.Start("fetch", 10)
	task.Write([]byte("0123456789"))
	r.Linef("[1/1] x.patch")
	task.Done()
	assert.Empty(t, out.String())
}

func TestAutoIsPlainWhenNotATerminal(t *testing.T) {
	var out bytes.Buffer
	r := New(&out, Auto)
	require.NotNil(t, r)
	assert.Equal(t, Plain, r.mode)
	assert.Equal(t, PlainInterval, r.interval)
}

func TestBytes(t *testing.T) {
	assert.Equal(t, "512 B", Bytes(512))
	assert.Equal(t, "1.5 KiB", Bytes(1536))
	assert.Equal(t, "17.0 MiB", Bytes(17<<20))
	assert.Equal(t, "2.0 GiB", Bytes(2<<30))
}

func TestAbortClearsTheLiveLineAndWritesNoTotal(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := newReporter(&out, Terminal, clock.now, columns(80))
	task := r.Start("download m@v1.zip", 4096)
	clock.advance(TerminalInterval)
	task.Add(1024)
	task.Abort()
	task.Done() // too late: the task failed
	assert.Equal(t, "download m@v1.zip: 1.0 KiB / 4.0 KiB (10.0 KiB/s)\r\x1b[K", out.String())
}

func TestAStepWithoutBytesSaysHowLongItTook(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := newReporter(&out, Plain, clock.now, columns(80))
	task := r.Start("check out 978c23bb96cc", 0)
	clock.advance(1234 * time.Millisecond)
	task.Done()
	assert.Equal(t, "check out 978c23bb96cc: done in 1.23s\n", out.String())
}
