package export

import (
	"bytes"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// contextLines is git's default amount of context around a change.
const contextLines = 3

type lineOp struct {
	op   gitdiff.LineOp
	text string
}

// lineOps turns a line diff into one operation per line.
func lineOps(old, new string) []lineOp {
	var ops []lineOp
	for _, d := range diff.Do(old, new) {
		op := gitdiff.OpContext
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = gitdiff.OpDelete
		case diffmatchpatch.DiffInsert:
			op = gitdiff.OpAdd
		}
		for _, l := range splitKeepEOL(d.Text) {
			ops = append(ops, lineOp{op: op, text: l})
		}
	}
	return ops
}

func splitKeepEOL(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// textFragments groups the changed lines into hunks with three lines of
// context, merging hunks whose context would overlap, as git does.
func textFragments(old, new string) []*gitdiff.TextFragment {
	ops := lineOps(old, new)
	oldLines := splitKeepEOL(old)
	var frags []*gitdiff.TextFragment
	i := 0
	for i < len(ops) {
		if ops[i].op == gitdiff.OpContext {
			i++
			continue
		}
		start := max(i-contextLines, 0)
		// Extend the hunk while the next change is within 2*context lines.
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].op != gitdiff.OpContext {
				end = j
				continue
			}
			if j-end > 2*contextLines {
				break
			}
		}
		stop := min(end+contextLines+1, len(ops))
		frags = append(frags, fragment(ops, start, stop, oldLines))
		i = stop
	}
	return frags
}

// fragment builds the hunk of ops[start:stop].
func fragment(ops []lineOp, start, stop int, oldLines []string) *gitdiff.TextFragment {
	var oldPos, newPos int64 = 1, 1
	for _, o := range ops[:start] {
		if o.op != gitdiff.OpAdd {
			oldPos++
		}
		if o.op != gitdiff.OpDelete {
			newPos++
		}
	}
	f := &gitdiff.TextFragment{OldPosition: oldPos, NewPosition: newPos}
	for _, o := range ops[start:stop] {
		f.Lines = append(f.Lines, gitdiff.Line{Op: o.op, Line: o.text})
		switch o.op {
		case gitdiff.OpContext:
			f.OldLines++
			f.NewLines++
		case gitdiff.OpDelete:
			f.OldLines++
			f.LinesDeleted++
		case gitdiff.OpAdd:
			f.NewLines++
			f.LinesAdded++
		}
	}
	// git numbers an empty side by the line before it.
	if f.OldLines == 0 {
		f.OldPosition--
	}
	if f.NewLines == 0 {
		f.NewPosition--
	}
	f.Comment = funcContext(oldLines, int(oldPos)-1)
	return f
}

// funcContext is git's default hunk-header context: the nearest line
// above the hunk that starts with a letter, '_' or '$', cut to 80 bytes.
func funcContext(oldLines []string, before int) string {
	for i := min(before, len(oldLines)) - 1; i >= 0; i-- {
		l := oldLines[i]
		if l == "" {
			continue
		}
		c := l[0]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' {
			l = strings.TrimRight(l, " \t\r\n")
			if len(l) > 80 {
				l = l[:80]
			}
			return l
		}
	}
	return ""
}

// isBinary is git's test: a NUL byte in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// UnifiedDiff is a unified diff of two texts, for people (interdiffs).
func UnifiedDiff(oldName, newName, old, new string) string {
	var b strings.Builder
	b.WriteString("--- " + oldName + "\n+++ " + newName + "\n")
	for _, f := range textFragments(old, new) {
		b.WriteString(shortCounts(f.String()))
	}
	return b.String()
}
