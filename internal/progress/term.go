package progress

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// DefaultWidth is the width assumed when neither the terminal nor
// $COLUMNS tells.
const DefaultWidth = 80

// IsTerminal is whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Width is how many columns w shows: the terminal's own size, else
// $COLUMNS, else DefaultWidth. It is asked again for every live line, so
// a resized window is followed.
func Width(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return DefaultWidth
}
