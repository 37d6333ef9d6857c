package review

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/epp-build/epp-build/internal/outfmt"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// WriteLog writes the log as text: one block per patch.
func WriteLog(w io.Writer, version string, entries []Entry) error {
	for _, e := range entries {
		fmt.Fprintf(w, "%d. %s  [%s]\n", e.Index, textsafe.Escape(e.Subject), textsafe.Escape(e.File))
		fmt.Fprintf(w, "   author:   %s, %s\n", textsafe.Escape(e.Author), e.Date)
		if e.Version != version {
			fmt.Fprintf(w, "   from:     %s\n", textsafe.Escape(e.Version))
		}
		fmt.Fprintf(w, "   upstream: %s\n", textsafe.Escape(orNone(e.Upstream)))
		fmt.Fprintf(w, "   reason:   %s\n", textsafe.Escape(orNone(e.Reason)))
		if _, err := fmt.Fprintf(w, "   files:    %s\n", textsafe.Escape(strings.Join(e.Files, ", "))); err != nil {
			return err
		}
	}
	return nil
}

// WriteLogMarkdown writes the log as a markdown table for a pull request.
func WriteLogMarkdown(w io.Writer, entries []Entry) error {
	rows := [][]string{{"#", "Patch", "Author", "Upstream", "Reason", "Files"}}
	for _, e := range entries {
		rows = append(rows, []string{
			fmt.Sprint(e.Index), outfmt.Cell(e.Subject) + "<br>" + code(e.File), outfmt.Cell(e.Author),
			links(e.Upstream), cells(e.Reason), codes(e.Files),
		})
	}
	return outfmt.Table(w, rows)
}

// WriteDiff writes the comparison as text: one block per patch, its
// change and subject, then its files, upstream and reason on indented
// lines, so that no line runs to the width of every column side by side;
// then each changed patch's interdiff.
func WriteDiff(w io.Writer, a, b string, changes []Change) error {
	indent := len("CHANGE") + 2
	for _, c := range changes {
		indent = max(indent, len(c.Label())+2)
	}
	indent = min(indent, maxDiffIndent)
	pad := strings.Repeat(" ", indent)
	// The same for every block, so that the values line up.
	keyWidth := max(len("upstream:")+1, len(textsafe.Escape(a))+2, len(textsafe.Escape(b))+2)
	fmt.Fprintf(w, "%-*s%s\n", indent, "CHANGE", "PATCH")
	for _, c := range changes {
		label := c.Label()
		if len(label)+2 > indent {
			fmt.Fprintf(w, "%s\n%s%s\n", label, pad, textsafe.Escape(c.Subject))
		} else {
			fmt.Fprintf(w, "%-*s%s\n", indent, label, textsafe.Escape(c.Subject))
		}
		var fields [][2]string
		if c.Old == c.New {
			fields = append(fields, [2]string{"file", c.Old})
		} else {
			fields = append(fields, [2]string{a, c.Old}, [2]string{b, c.New})
		}
		fields = append(fields, [2]string{"upstream", orNone(c.Upstream)}, [2]string{"reason", orNone(c.Reason)})
		for _, f := range fields {
			value := f[1]
			if value == "" {
				value = "-"
			}
			lines := outfmt.Wrap(textsafe.Escape(value), max(diffWidth-indent-keyWidth, 20))
			for i, l := range lines {
				key := ""
				if i == 0 {
					key = textsafe.Escape(f[0]) + ":"
				}
				fmt.Fprintf(w, "%s%-*s%s\n", pad, keyWidth, key, l)
			}
		}
	}
	for _, c := range changes {
		if c.Interdiff != "" {
			fmt.Fprintf(w, "\ninterdiff of %q:\n%s", c.Subject, textsafe.EscapeLines(c.Interdiff))
		}
	}
	return nil
}

// diffWidth is the width diff-series' text wraps its details at, and
// maxDiffIndent the deepest it indents them; a longer change label gets a
// line of its own.
const (
	diffWidth     = 110
	maxDiffIndent = 16
)

// WriteDiffMarkdown writes the comparison as a markdown table; interdiffs
// go below it in collapsed diff blocks.
func WriteDiffMarkdown(w io.Writer, a, b string, changes []Change) error {
	rows := [][]string{{"Change", "Patch", outfmt.Cell(a), outfmt.Cell(b), "Upstream", "Reason"}}
	for _, c := range changes {
		rows = append(rows, []string{c.Label(), outfmt.Cell(c.Subject), codeOrDash(c.Old), codeOrDash(c.New), links(c.Upstream), cells(c.Reason)})
	}
	if err := outfmt.Table(w, rows); err != nil {
		return err
	}
	for _, c := range changes {
		if c.Interdiff == "" {
			continue
		}
		fence := "```"
		for strings.Contains(c.Interdiff, fence) {
			fence += "`"
		}
		fmt.Fprintf(w, "\n<details><summary>interdiff of %s</summary>\n\n%sdiff\n%s%s\n\n</details>\n", outfmt.Cell(c.Subject), fence, textsafe.EscapeLines(c.Interdiff), fence)
	}
	return nil
}

func cells(v []string) string {
	if len(v) == 0 {
		return "-"
	}
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = outfmt.Cell(s)
	}
	return strings.Join(out, "<br>")
}

// links shows URLs as autolinks and anything else as text.
func links(v []string) string {
	if len(v) == 0 {
		return "-"
	}
	out := make([]string, len(v))
	for i, s := range v {
		u, err := url.Parse(s)
		if err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && !strings.ContainsAny(s, " <>|\\`") && s == textsafe.Escape(s) {
			out[i] = "<" + s + ">"
		} else {
			out[i] = outfmt.Cell(s)
		}
	}
	return strings.Join(out, "<br>")
}

// code shows a file name as code; the names come from patch files, so a
// backtick or pipe in one is escaped rather than trusted.
func code(s string) string {
	if s == "" || strings.ContainsAny(s, "`|\n\r") || s != textsafe.Escape(s) {
		return outfmt.Cell(s)
	}
	return "`" + s + "`"
}

func codes(v []string) string {
	if len(v) == 0 {
		return "-"
	}
	out := make([]string, len(v))
	for i, s := range v {
		out[i] = code(s)
	}
	return strings.Join(out, "<br>")
}

func codeOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return code(s)
}

func orNone(v []string) string {
	if len(v) == 0 {
		return "-"
	}
	return strings.Join(v, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return textsafe.Escape(s)
}

// WriteLintMarkdown writes lint's problems as a markdown table; notices
// are not problems, and go to stderr (Notices).
func WriteLintMarkdown(w io.Writer, problems []Problem) error {
	if Failures(problems) == 0 {
		_, err := io.WriteString(w, "No problems.\n")
		return err
	}
	rows := [][]string{{"Version", "Patch", "Problem"}}
	for _, p := range problems {
		if !p.Notice {
			rows = append(rows, []string{outfmt.Cell(p.Version), codeOrDash(p.Patch), outfmt.Cell(p.Message)})
		}
	}
	return outfmt.Table(w, rows)
}
