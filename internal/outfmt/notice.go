package outfmt

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/epp-build/epp-build/internal/textsafe"
)

// Notice is something the reader should know that is not the result: a
// history that could not be read, a recipe checked only at a commit. It
// goes to stderr, so that stdout is only the document -o asks for, and on
// one line, so that it does not bury the result; the whole text is in
// Detail, shown with -v and kept in the JSON document.
type Notice struct {
	Line   string
	Detail string
}

// NoticeWidth is the most characters a notice's line takes.
const NoticeWidth = 160

// detailHint ends a notice whose detail is not shown.
const detailHint = " (more with -v)"

// WriteNotices prints each notice as one line, "notice: " and its Line,
// escaped and cut to NoticeWidth; with verbose, its Detail follows on
// indented lines.
func WriteNotices(w io.Writer, verbose bool, notices []Notice) error {
	for _, n := range notices {
		hint := ""
		if n.Detail != "" && !verbose {
			hint = detailHint
		}
		// Whitespace is collapsed before escaping, so that a line break
		// becomes a space rather than a shown "\n".
		line := "notice: " + Shorten(textsafe.Escape(strings.Join(strings.Fields(n.Line), " ")), NoticeWidth-len("notice: ")-len(hint)) + hint
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
		if !verbose || n.Detail == "" {
			continue
		}
		for _, l := range Wrap(n.Detail, NoticeWidth-4) {
			if _, err := fmt.Fprintln(w, "    "+textsafe.Escape(l)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Shorten makes s one line of at most max characters, cut at a word
// where it can be, "..." marking the cut.
func Shorten(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	cut := string(r[:max-3])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "..."
}

// Wrap breaks s into lines of at most width characters at spaces; a word
// longer than width (a URL) gets a line of its own.
func Wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		wn := utf8.RuneCountInString(word)
		if n > 0 && n+1+wn > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(word)
		n += wn
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
