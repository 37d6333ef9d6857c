// Package textsafe makes text from patches (subjects, authors, trailers,
// file names) safe to print on a terminal: control characters are shown
// escaped instead of moving the cursor, recolouring or rewriting what the
// user sees.
package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape shows every control character of s escaped: C0 controls (newline
// and carriage return included), DEL, C1 controls, bidirectional overrides
// and bytes that are not UTF-8. Tabs are kept. Use it for one-line fields.
func Escape(s string) string { return escape(s, false) }

// EscapeLines is Escape for multi-line text: newlines are kept.
func EscapeLines(s string) string { return escape(s, true) }

func escape(s string, keepNewlines bool) string {
	if clean(s, keepNewlines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines, r == '\t', !unsafe(r):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// clean is the fast path: most text is plain ASCII with nothing to
// escape.
func clean(s string, keepNewlines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || c < 0x20 && c != '\t' && !(c == '\n' && keepNewlines) {
			return false
		}
	}
	return true
}

// unsafe is a rune a terminal acts on rather than shows.
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidirectional overrides reorder what is shown
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators break a line
	}
	return false
}
