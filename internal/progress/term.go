package progress

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// DefaultWidth is the width assumed when neither the terminal nor
// $COLUMNS tells.
const DefaultWidth = 80

// IsTerminal is whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Width is how many columns w shows: the terminal's own size, else
// $COLUMNS, else DefaultWidth. It is asked again for every live line, so
// a resized window is followed.
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return DefaultWidth
}
