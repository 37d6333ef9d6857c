package progress

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

func TestWidthAsksTheTerminalThenCOLUMNS(t *testing.T) {
	p := testutil.NewPty(t, 72)
	t.Setenv("COLUMNS", "200")
	assert.Equal(t, 72, Width(p.Term), "the terminal's own size wins")
	assert.Equal(t, 200, Width(&bytes.Buffer{}))
	t.Setenv("COLUMNS", "wide")
	assert.Equal(t, DefaultWidth, Width(&bytes.Buffer{}))
	t.Setenv("COLUMNS", "")
	assert.Equal(t, DefaultWidth, Width(&bytes.Buffer{}))
}

func TestADumbTerminalGetsPlainLinesWithoutEscapes(t *testing.T) {
	p := testutil.NewPty(t, 80)
	t.Setenv("TERM", "xterm")
	live := New(p.Term, Auto)
	require.NotNil(t, live)
	assert.Equal(t, Terminal, live.mode, "a terminal gets the live line")

	t.Setenv("TERM", "dumb")
	r := New(p.Term, Auto)
	require.NotNil(t, r)
	assert.Equal(t, Plain, r.mode)
	task := r.Start("fetch https://example.invalid/gaie.git", 100)
	task.Write(make([]byte, 100))
	r.Linef("[1/1] 0001-a.patch")
	task.Done()
	out := p.Output(t)
	assert.Contains(t, out, "[1/1] 0001-a.patch\n")
	assert.Contains(t, out, "fetch https://example.invalid/gaie.git: 100 B in ")
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\r")
}

func TestTtyIsLiveEvenWhenNotATerminal(t *testing.T) {
	r := New(&bytes.Buffer{}, Terminal)
	require.NotNil(t, r)
	assert.Equal(t, Terminal, r.mode)
}
