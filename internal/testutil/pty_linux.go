package testutil

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// NewPty opens a pseudo-terminal, or skips the test where the system has
// none (a container without devpts).
func NewPty(t testing.TB, cols int) *Pty {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0), "unlock the pty")
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	term, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { term.Close() })
	require.NoError(t, unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}))
	// The terminal would turn "\n" into "\r\n": keep the bytes as written.
	tio, err := unix.IoctlGetTermios(int(term.Fd()), unix.TCGETS)
	require.NoError(t, err)
	tio.Oflag &^= unix.OPOST
	require.NoError(t, unix.IoctlSetTermios(int(term.Fd()), unix.TCSETS, tio))
	p := &Pty{Term: term, out: make(chan []byte, 1)}
	go func() {
		var b bytes.Buffer
		// Reading ends with EIO once no one holds the terminal end open.
		_, _ = io.Copy(&b, master)
		p.out <- b.Bytes()
	}()
	return p
}
