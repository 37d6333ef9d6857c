package progress

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestColumnsCountsWhatTheTerminalShows(t *testing.T) {
	assert.Equal(t, 5, Columns("fetch"))
	assert.Equal(t, 5, Columns("héllo"), "é is two bytes, one column")
	assert.Equal(t, 4, Columns("補丁"), "wide runes take two columns")
	assert.Equal(t, 1, Columns("e\u0301"), "a combining accent takes none")
}

func TestFitCutsToColumnsWithAVisibleEllipsis(t *testing.T) {
	assert.Equal(t, "short", Fit("short", 5))
	assert.Equal(t, "shor…", Fit("shorter", 5))
	assert.Equal(t, "éééé…", Fit(strings.Repeat("é", 10), 5))
	// A wide rune that would straddle the edge goes whole.
	assert.Equal(t, "補…", Fit("補丁補丁", 4))
	assert.LessOrEqual(t, Columns(Fit("補丁補丁", 4)), 4)
	assert.Equal(t, "", Fit("x y", 0))
}

func TestATaskLineKeepsItsStateAndCutsTheNameInTheMiddle(t *testing.T) {
	name := "fetch https://example.invalid/" + strings.Repeat("a", 150) + "/gaie.git"
	got := fitTask(name, "1.0 MiB / 3.0 MiB (512.0 KiB/s)", 79)
	assert.Equal(t, 79, Columns(got))
	assert.True(t, strings.HasPrefix(got, "fetch https://example.i…"), got)
	assert.True(t, strings.HasSuffix(got, "aa/gaie.git: 1.0 MiB / 3.0 MiB (512.0 KiB/s)"), got)
	assert.Contains(t, got, "…")

	// Too narrow for any name: the line is cut at its end instead.
	narrow := fitTask(name, "1.0 MiB (512.0 KiB/s)", 20)
	assert.Equal(t, 20, Columns(narrow))
	assert.True(t, strings.HasSuffix(narrow, "…"), narrow)
}

// liveLines are what a terminal shows of out: each piece between carriage
// returns and newlines, with the erase-line sequence taken off.
func liveLines(out string) []string {
	return regexp.MustCompile(`\r|\n`).Split(strings.ReplaceAll(out, "\x1b[K", ""), -1)
}

func TestTheLiveLineFitsTheTerminal(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := newReporter(&out, Terminal, clock.now, columns(80))
	label := strings.Repeat("x", 200)
	require.Len(t, label, 200)
	task := r.Start("download "+label, 3<<20)
	for range 5 {
		clock.advance(TerminalInterval)
		task.Add(512 << 10)
	}
	task.Done()
	require.Contains(t, out.String(), "\r\x1b[K", "the live line was drawn")
	for _, l := range liveLines(out.String()) {
		assert.LessOrEqual(t, Columns(l), 79, "%q", l)
	}
	assert.Contains(t, out.String(), "…")
	assert.Regexp(t, `x: 2\.5 MiB in 500ms \(5\.0 MiB/s\), done\n$`, out.String())
}

func TestANoticeIsNeverCut(t *testing.T) {
	var out bytes.Buffer
	r := newReporter(&out, Terminal, time.Now, columns(40))
	cause := "notice: git fetch of https://example.invalid/" + strings.Repeat("b", 60) + ".git failed: timeout"
	r.Linef("%s", cause)
	assert.Equal(t, cause+"\n", out.String())
}

func TestPlainLinesAreNotCut(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := newReporter(&out, Plain, clock.now, columns(40))
	name := "fetch https://example.invalid/" + strings.Repeat("c", 60) + ".git"
	task := r.Start(name, 0)
	clock.advance(PlainInterval)
	task.Add(1024)
	task.Done()
	assert.Equal(t, name+": 1.0 KiB (512 B/s)\n"+name+": 1.0 KiB in 2s (512 B/s), done\n", out.String())
}

func TestLabelsAreEscapedForTheTerminal(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Unix(1000, 0)}
	r := newReporter(&out, Plain, clock.now, columns(80))
	r.Linef("[1/1] %s", "evil\x1b]0;pwned\x07.patch")
	r.Start("fetch x\x1b[2J", 0).Done()
	assert.NotContains(t, out.String(), "\x1b")
	assert.Contains(t, out.String(), `evil\x1b]0;pwned\x07.patch`)
}
