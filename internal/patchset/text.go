package patchset

import (
	"bufio"
	"bytes"
	"io"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// content is a file's new content. Its size is known before it is
// written, so a large result can stream into its blob instead of being
// held in memory first.
type content interface {
	size() int64
	writeTo(w io.Writer) error
}

// bytesContent is content already in memory.
type bytesContent []byte

func (b bytesContent) size() int64 { return int64(len(b)) }

func (b bytesContent) writeTo(w io.Writer) error {
	_, err := w.Write(b)
	return err
}

// sourceLines indexes the lines of a file without copying them: line i is
// src[start[i]:start[i+1]].
type sourceLines struct {
	src   []byte
	start []int
}

func indexLines(src []byte) sourceLines {
	start := make([]int, 1, bytes.Count(src, []byte{'\n'})+2)
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			i = len(src)
		} else {
			i += j + 1
		}
		start = append(start, i)
	}
	return sourceLines{src: src, start: start}
}

func (s sourceLines) count() int        { return len(s.start) - 1 }
func (s sourceLines) line(i int) []byte { return s.src[s.start[i]:s.start[i+1]] }
func (s sourceLines) span(from, to int) []byte {
	return s.src[s.start[from]:s.start[to]]
}

// placedHunk is a hunk and the 0-based source line its preimage starts at.
type placedHunk struct {
	frag *gitdiff.TextFragment
	at   int
	old  int // preimage lines
}

// textResult is a text patch whose hunks have all been placed: writing it
// copies the source between hunks and the hunks' new lines.
type textResult struct {
	lines sourceLines
	hunks []placedHunk
	bytes int64
}

func (r *textResult) size() int64 { return r.bytes }

// stringWriter is a bytes.Buffer or a bufio.Writer: the result is written
// in many small pieces.
type stringWriter interface {
	io.Writer
	io.StringWriter
}

func (r *textResult) writeTo(w io.Writer) error {
	if sw, ok := w.(stringWriter); ok {
		return r.writePieces(sw)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := r.writePieces(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// writePieces copies the source between hunks and the hunks' new lines,
// stopping at the first error.
func (r *textResult) writePieces(w stringWriter) error {
	var err error
	write := func(b []byte) {
		if err == nil {
			_, err = w.Write(b)
		}
	}
	next := 0
	for _, h := range r.hunks {
		write(r.lines.span(next, h.at))
		for _, l := range h.frag.Lines {
			if l.New() && err == nil {
				_, err = w.WriteString(l.Line)
			}
		}
		next = h.at + h.old
	}
	write(r.lines.span(next, r.lines.count()))
	return err
}

// applyText places each hunk where its exact preimage is: at the position
// the hunk names (shifted by the drift of earlier hunks), else at the
// nearest position where the whole preimage matches. Never with fuzz.
func applyText(p *Patch, f *gitdiff.File, src []byte) (*textResult, []Offset, error) {
	lines := indexLines(src)
	res := &textResult{lines: lines, bytes: int64(len(src))}
	var offsets []Offset
	next := 0         // first source line after the last placed hunk
	drift := int64(0) // how far earlier hunks moved
	for _, frag := range f.TextFragments {
		old := preimageLines(frag)
		want := frag.OldPosition - 1 + drift
		if frag.OldLines == 0 && frag.OldPosition > 0 {
			want = frag.OldPosition + drift // pure insertion after line OldPosition
		}
		if want < int64(next) {
			want = int64(next)
		}
		at, ok := findPreimage(lines, frag, old, next, int(want))
		if !ok {
			return nil, nil, conflict(p, f, frag, lines, int(want))
		}
		if int64(at) != want {
			offsets = append(offsets, Offset{File: fileName(f), Hunk: frag.Header(), Lines: int64(at) - (frag.OldPosition - 1)})
		}
		drift = int64(at) - (frag.OldPosition - 1)
		if frag.OldLines == 0 && frag.OldPosition > 0 {
			drift = int64(at) - frag.OldPosition
		}
		res.hunks = append(res.hunks, placedHunk{frag: frag, at: at, old: old})
		res.bytes -= int64(len(lines.span(at, at+old)))
		for _, l := range frag.Lines {
			if l.New() {
				res.bytes += int64(len(l.Line))
			}
		}
		next = at + old
	}
	return res, offsets, nil
}

func preimageLines(frag *gitdiff.TextFragment) int {
	n := 0
	for _, l := range frag.Lines {
		if l.Old() {
			n++
		}
	}
	return n
}

// matchesAt compares the hunk's preimage with the source at line at,
// reading both in place.
func matchesAt(lines sourceLines, frag *gitdiff.TextFragment, old, at int) bool {
	if at < 0 || at+old > lines.count() {
		return false
	}
	i := at
	for _, l := range frag.Lines {
		if !l.Old() {
			continue
		}
		if string(lines.line(i)) != l.Line {
			return false
		}
		i++
	}
	return true
}

// findPreimage searches outward from want for an exact match, never
// before min (hunks apply in order and must not overlap).
func findPreimage(lines sourceLines, frag *gitdiff.TextFragment, old, min, want int) (int, bool) {
	if want > lines.count() {
		want = lines.count()
	}
	for d := 0; ; d++ {
		lo, hi := want-d, want+d
		if lo < min && hi+old > lines.count() {
			return 0, false
		}
		if lo >= min && matchesAt(lines, frag, old, lo) {
			return lo, true
		}
		if d > 0 && matchesAt(lines, frag, old, hi) {
			return hi, true
		}
	}
}

// nearestFitBudget bounds the line comparisons spent looking for where
// most of a conflicting hunk fits: the search compares every line of the
// hunk at every line of the file, which for a large hunk would not end.
const nearestFitBudget = 50_000_000

// conflict describes why a hunk did not apply: the first differing line at
// the expected position and the place where most of the hunk matches.
func conflict(p *Patch, f *gitdiff.File, frag *gitdiff.TextFragment, lines sourceLines, want int) error {
	var pre []string
	for _, l := range frag.Lines {
		if l.Old() {
			pre = append(pre, l.Line)
		}
	}
	e := &ConflictError{Patch: p.Name(), File: fileName(f), Hunk: frag.Header(), NearestOf: len(pre)}
	for i, l := range pre {
		if want+i >= lines.count() {
			e.Line, e.Expected, e.Found = int64(want+i+1), l, "(end of file)"
			break
		}
		if string(lines.line(want+i)) != l {
			e.Line, e.Expected, e.Found = int64(want+i+1), l, string(lines.line(want+i))
			break
		}
	}
	if int64(len(pre))*int64(lines.count()) > nearestFitBudget {
		e.NearestSkipped = true
		return e
	}
	best, bestAt := 0, -1
	for at := 0; at+len(pre) <= lines.count(); at++ {
		n := 0
		for i, l := range pre {
			if string(lines.line(at+i)) == l {
				n++
			}
		}
		if n > best || (n == best && n > 0 && abs(at-want) < abs(bestAt-want)) {
			best, bestAt = n, at
		}
	}
	if best > 0 {
		e.Nearest, e.NearestMatched = int64(bestAt+1), best
	}
	return e
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
