package progress

import (
	"unicode"
	"unicode/utf8"
)

// ellipsis marks where a line was cut; it takes one column.
const ellipsis = "…"

// Columns is how many terminal columns s takes: wide (East Asian) runes
// take two, combining marks none. Bytes are no measure: a multi-byte rune
// may take one column.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

func runeColumns(r rune) int {
	switch {
	case r == '\t':
		return 8 // at most: a tab stop is never further
	case r < 0x20, r == 0x7f:
		return 0
	case unicode.Is(unicode.Mn, r), unicode.Is(unicode.Me, r), unicode.Is(unicode.Cf, r):
		return 0
	case wide(r):
		return 2
	}
	return 1
}

// wide is East Asian Wide or Fullwidth, and the emoji blocks terminals
// draw two columns wide.
func wide(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x115f,
		r >= 0x2e80 && r <= 0x303e,
		r >= 0x3041 && r <= 0x33ff,
		r >= 0x3400 && r <= 0x4dbf,
		r >= 0x4e00 && r <= 0x9fff,
		r >= 0xa000 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff,
		r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff,
		r >= 0x20000 && r <= 0x3fffd:
		return true
	}
	return false
}

// Fit cuts s to at most max columns, its end replaced by an ellipsis when
// it is cut.
func Fit(s string, max int) string {
	if Columns(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	return head(s, max-1) + ellipsis
}

// fitTask fits "name: state" in max columns. The state (bytes, rate, done)
// is what changes, so the name gives way first, cut in its middle: a URL
// keeps its host and its repository's name.
func fitTask(name, state string, max int) string {
	line := name + ": " + state
	if Columns(line) <= max {
		return line
	}
	room := max - Columns(": "+state)
	const least = 12 // a shorter name says nothing
	if room < least {
		return Fit(line, max)
	}
	keep := room - 1
	return head(name, keep-keep/2) + ellipsis + tail(name, keep/2) + ": " + state
}

// head is the longest start of s within max columns.
func head(s string, max int) string {
	n := 0
	for i, r := range s {
		if n += runeColumns(r); n > max {
			return s[:i]
		}
	}
	return s
}

// tail is the longest end of s within max columns.
func tail(s string, max int) string {
	n := 0
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if n += runeColumns(r); n > max {
			return s[i:]
		}
		i -= size
	}
	return s
}
