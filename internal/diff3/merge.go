// Package diff3 merges two edits of one text line by line, as
// `git merge-file --diff3` does: the changes each side made to the base
// are combined; where both changed the same lines (or lines that touch)
// differently, the region is a conflict written with diff3 markers. The
// regions are git's: the same diff placement, the same grouping of
// overlapping changes, and a change both sides made alike is no conflict
// (git's diffs, computed as xdiff computes them, place it alike).
package diff3

import (
	"bytes"
	"strings"
)

// Labels name the sides on the conflict markers (git's -L).
type Labels struct{ Ours, Base, Theirs string }

// Result is a merged text and its conflict regions.
type Result struct {
	Text      []byte
	Conflicts []Conflict
}

// Conflict is one conflict region: the lines of each side, line ending
// included.
type Conflict struct {
	Ours, Base, Theirs []string
}

// Merge combines the changes from base to ours and from base to theirs.
func Merge(base, ours, theirs []byte, l Labels) Result {
	b, o, t := Lines(base), Lines(ours), Lines(theirs)
	chunks := chunks(lineDiff(b, o), lineDiff(b, t), len(b), len(o), len(t), o, t)
	var out bytes.Buffer
	var res Result
	i := 0 // next line of ours to copy
	for _, c := range chunks {
		write(&out, o[i:c.i1], false)
		switch c.mode {
		case fromOurs:
			write(&out, o[c.i1:c.i1+c.n1], false)
		case fromTheirs:
			write(&out, t[c.i2:c.i2+c.n2], false)
		default:
			cf := Conflict{Ours: o[c.i1 : c.i1+c.n1], Base: b[c.i0 : c.i0+c.n0], Theirs: t[c.i2 : c.i2+c.n2]}
			res.Conflicts = append(res.Conflicts, cf)
			marker(&out, "<<<<<<<", l.Ours)
			write(&out, cf.Ours, true)
			marker(&out, "|||||||", l.Base)
			write(&out, cf.Base, true)
			marker(&out, "=======", "")
			write(&out, cf.Theirs, true)
			marker(&out, ">>>>>>>", l.Theirs)
		}
		i = c.i1 + c.n1
	}
	write(&out, o[i:], false)
	res.Text = out.Bytes()
	return res
}

// Clean reports whether the merge had no conflict.
func (r Result) Clean() bool { return len(r.Conflicts) == 0 }

// Lines splits text after each newline; the last line may lack one.
func Lines(text []byte) []string {
	var out []string
	for len(text) > 0 {
		i := bytes.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, string(text))
			break
		}
		out = append(out, string(text[:i+1]))
		text = text[i+1:]
	}
	return out
}

func marker(out *bytes.Buffer, m, label string) {
	out.WriteString(m)
	if label != "" {
		out.WriteString(" " + label)
	}
	out.WriteString("\n")
}

// write copies lines; inside a conflict a last line without a newline
// gets one, so the marker after it starts a line (as git writes it).
func write(out *bytes.Buffer, lines []string, endLine bool) {
	for _, l := range lines {
		out.WriteString(l)
	}
	if n := len(lines); endLine && n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		out.WriteString("\n")
	}
}

type mode int

const (
	conflict mode = iota
	fromOurs
	fromTheirs
)

// chunk is one merged region: base[i0:i0+n0], ours[i1:i1+n1] and
// theirs[i2:i2+n2] line up there.
type chunk struct {
	mode           mode
	i0, n0, i1, n1 int
	i2, n2         int
}

// chunks walks both change lists as xdiff's xdl_do_merge does at its
// "eager" level (the one git uses for diff3 output): a change of one side
// that does not touch a change of the other is taken; changes that
// overlap or touch are one conflict, unless both sides made the very
// same change; chunks that overlap or touch are joined.
func chunks(d1, d2 []hunk, nBase, nOurs, nTheirs int, ours, theirs []string) []chunk {
	var out []chunk
	add := func(c chunk) {
		if n := len(out); n > 0 {
			m := &out[n-1]
			if c.i1 <= m.i1+m.n1 || c.i2 <= m.i2+m.n2 {
				if c.mode != m.mode {
					m.mode = conflict
				}
				m.n0 = c.i0 + c.n0 - m.i0
				m.n1 = c.i1 + c.n1 - m.i1
				m.n2 = c.i2 + c.n2 - m.i2
				return
			}
		}
		out = append(out, c)
	}
	x, y := 0, 0
	for x < len(d1) && y < len(d2) {
		h1, h2 := d1[x], d2[y]
		if h1.A+h1.NA < h2.A {
			add(chunk{fromOurs, h1.A, h1.NA, h1.B, h1.NB, h2.B - h2.A + h1.A, h1.NA})
			x++
			continue
		}
		if h2.A+h2.NA < h1.A {
			add(chunk{fromTheirs, h2.A, h2.NA, h1.B - h1.A + h2.A, h2.NA, h2.B, h2.NB})
			y++
			continue
		}
		if h1.A != h2.A || h1.NA != h2.NA || h1.NB != h2.NB || !equal(ours[h1.B:h1.B+h1.NB], theirs[h2.B:h2.B+h2.NB]) {
			off := h1.A - h2.A
			ffo := off + h1.NA - h2.NA
			i0, i1, i2 := h1.A, h1.B, h2.B
			if off > 0 {
				i0 -= off
				i1 -= off
			} else {
				i2 += off
			}
			n0 := h1.A + h1.NA - i0
			n1 := h1.B + h1.NB - i1
			n2 := h2.B + h2.NB - i2
			if ffo < 0 {
				n0 -= ffo
				n1 -= ffo
			} else {
				n2 += ffo
			}
			add(chunk{conflict, i0, n0, i1, n1, i2, n2})
		}
		e1, e2 := h1.A+h1.NA, h2.A+h2.NA
		if e1 >= e2 {
			y++
		}
		if e2 >= e1 {
			x++
		}
	}
	for ; x < len(d1); x++ {
		h1 := d1[x]
		add(chunk{fromOurs, h1.A, h1.NA, h1.B, h1.NB, h1.A + nTheirs - nBase, h1.NA})
	}
	for ; y < len(d2); y++ {
		h2 := d2[y]
		add(chunk{fromTheirs, h2.A, h2.NA, h2.A + nOurs - nBase, h2.NA, h2.B, h2.NB})
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}
