package outfmt

import (
	"io"
	"strings"

	"github.com/epp-build/epp-build/internal/textsafe"
)

// Table writes rows as a markdown table; the first row is the header.
// Cells must already be markdown (see Cell).
func Table(w io.Writer, rows [][]string) error {
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
		if i == 0 {
			b.WriteString(strings.Repeat("|---", len(r)) + "|\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Cell makes s one markdown table cell that reads as the text itself:
// markdown punctuation escaped, pipes and line breaks kept inside the cell,
// control characters shown, not sent.
func Cell(s string) string {
	var b strings.Builder
	for _, r := range textsafe.EscapeLines(strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))) {
		switch {
		case r == '\n':
			b.WriteString("<br>")
		case strings.ContainsRune("\\|*_`[]<>#~!&", r):
			b.WriteRune('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}
