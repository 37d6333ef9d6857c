package testutil

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Pty is a pseudo-terminal cols columns wide: Term is the terminal end a
// program writes to (its stderr), and Output returns everything written
// there once Term's writers are closed. No external tool or module is
// needed: Linux's /dev/ptmx is enough (elsewhere NewPty skips).
type Pty struct {
	Term *os.File
	out  chan []byte
}

// Output closes this process's terminal end and returns what was written
// to it; call it after every other writer (a child process) has ended.
func (p *Pty) Output(t testing.TB) string {
	t.Helper()
	require.NoError(t, p.Term.Close())
	return string(<-p.out)
}
