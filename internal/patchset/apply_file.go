package patchset

import (
	"bytes"
	"fmt"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Offset notes a hunk that applied with exact context at a moved position.
type Offset struct {
	File  string `json:"file"`
	Hunk  string `json:"hunk"`
	Lines int64  `json:"lines"`
}

// applyPatch applies every file diff of p to t, or returns the first error;
// a patch either applies whole or the caller throws the tree away.
func applyPatch(t *tree, p *Patch) ([]Offset, error) {
	var offsets []Offset
	for _, f := range p.Files {
		o, err := applyFileDiff(t, p, f)
		if err != nil {
			return nil, err
		}
		offsets = append(offsets, o...)
	}
	return offsets, nil
}

func applyFileDiff(t *tree, p *Patch, f *gitdiff.File) ([]Offset, error) {
	fail := func(format string, args ...any) error {
		return &FileError{Patch: p.Name(), File: fileName(f), Reason: fmt.Sprintf(format, args...)}
	}
	target := targetName(f)
	if parent := t.blockingParent(target); parent != "" {
		if t.mode(parent) == filemode.Symlink {
			return nil, &UnsafeError{Patch: p.Name(), Path: target, Reason: fmt.Sprintf("passes through the symlink %s", parent)}
		}
		return nil, fail("%s is a file, not a directory", parent)
	}

	var src []byte
	var oldMode filemode.FileMode
	switch {
	case f.IsNew:
		if t.exists(f.NewName) {
			return nil, fail("the patch creates it, but it already exists")
		}
	default:
		if !t.exists(f.OldName) {
			return nil, fail("the patch changes it, but it does not exist")
		}
		data, err := t.read(f.OldName)
		if err != nil {
			return nil, fail("read: %v", err)
		}
		src, oldMode = data, t.mode(f.OldName)
		if want, _ := canonMode(f.OldMode); f.OldMode != 0 && want != oldMode {
			return nil, fail("the patch expects mode %o, the file has %o", uint32(want), uint32(oldMode))
		}
		if m, _ := canonMode(f.NewMode); f.NewMode != 0 && isSymlink(m) != isSymlink(oldMode) {
			return nil, typeChangeRefused(p, f, oldMode, m)
		}
	}
	if (f.IsRename || f.IsCopy) && t.exists(f.NewName) {
		return nil, fail("the patch renames or copies onto %s, which already exists", f.NewName)
	}

	out, offsets, err := applyContent(p, f, src)
	if err != nil {
		return nil, err
	}

	if f.IsDelete {
		if len(out) != 0 {
			return nil, fail("the patch deletes it, but the file has more content than the patch removes")
		}
		t.remove(f.OldName)
		return offsets, nil
	}
	mode := oldMode
	if f.NewMode != 0 {
		mode, _ = canonMode(f.NewMode) // checkModes refused the others
	}
	if mode == 0 {
		mode = filemode.Regular
	}
	if f.IsRename {
		t.remove(f.OldName)
	}
	if err := t.set(f.NewName, mode, out); err != nil {
		return nil, err
	}
	return offsets, nil
}

// applyContent applies the text or binary fragments of f to src.
func applyContent(p *Patch, f *gitdiff.File, src []byte) ([]byte, []Offset, error) {
	if f.IsBinary {
		out, err := applyBinary(p, f, src)
		return out, nil, err
	}
	if len(f.TextFragments) == 0 {
		return src, nil, nil
	}
	return applyText(p, f, src)
}

// applyText applies each hunk where its exact preimage is: at the position
// the hunk names (shifted by the drift of earlier hunks), else at the
// nearest position where the whole preimage matches. Never with fuzz.
func applyText(p *Patch, f *gitdiff.File, src []byte) ([]byte, []Offset, error) {
	lines := splitLines(src)
	var out bytes.Buffer
	out.Grow(len(src) + addedBytes(f))
	var offsets []Offset
	next := 0         // first source line not yet copied (0-based)
	drift := int64(0) // how far earlier hunks moved
	for _, frag := range f.TextFragments {
		pre := preimage(frag)
		want := frag.OldPosition - 1 + drift
		if frag.OldLines == 0 && frag.OldPosition > 0 {
			want = frag.OldPosition + drift // pure insertion after line OldPosition
		}
		if want < int64(next) {
			want = int64(next)
		}
		at, ok := findPreimage(lines, pre, next, int(want))
		if !ok {
			return nil, nil, conflict(p, f, frag, lines, pre, int(want))
		}
		if int64(at) != want {
			offsets = append(offsets, Offset{File: fileName(f), Hunk: frag.Header(), Lines: int64(at) - (frag.OldPosition - 1)})
		}
		drift = int64(at) - (frag.OldPosition - 1)
		if frag.OldLines == 0 && frag.OldPosition > 0 {
			drift = int64(at) - frag.OldPosition
		}
		for _, l := range lines[next:at] {
			out.Write(l)
		}
		for _, l := range frag.Lines {
			if l.New() {
				out.WriteString(l.Line)
			}
		}
		next = at + len(pre)
	}
	for _, l := range lines[next:] {
		out.Write(l)
	}
	return out.Bytes(), offsets, nil
}

// addedBytes is the size of the lines f adds: with it the result is
// allocated once instead of growing line by line.
func addedBytes(f *gitdiff.File) int {
	n := 0
	for _, frag := range f.TextFragments {
		for _, l := range frag.Lines {
			if l.Op == gitdiff.OpAdd {
				n += len(l.Line)
			}
		}
	}
	return n
}

func preimage(frag *gitdiff.TextFragment) [][]byte {
	var pre [][]byte
	for _, l := range frag.Lines {
		if l.Old() {
			pre = append(pre, []byte(l.Line))
		}
	}
	return pre
}

func splitLines(b []byte) [][]byte {
	var lines [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			lines = append(lines, b)
			break
		}
		lines = append(lines, b[:i+1])
		b = b[i+1:]
	}
	return lines
}

func matchesAt(lines, pre [][]byte, at int) bool {
	if at < 0 || at+len(pre) > len(lines) {
		return false
	}
	for i, l := range pre {
		if !bytes.Equal(lines[at+i], l) {
			return false
		}
	}
	return true
}

// findPreimage searches outward from want for an exact match, never
// before min (hunks apply in order and must not overlap).
func findPreimage(lines, pre [][]byte, min, want int) (int, bool) {
	if want > len(lines) {
		want = len(lines)
	}
	for d := 0; ; d++ {
		lo, hi := want-d, want+d
		if lo < min && hi+len(pre) > len(lines) {
			return 0, false
		}
		if lo >= min && matchesAt(lines, pre, lo) {
			return lo, true
		}
		if d > 0 && matchesAt(lines, pre, hi) {
			return hi, true
		}
	}
}

// conflict describes why a hunk did not apply: the first differing line at
// the expected position and the place where most of the hunk matches.
func conflict(p *Patch, f *gitdiff.File, frag *gitdiff.TextFragment, lines, pre [][]byte, want int) error {
	e := &ConflictError{Patch: p.Name(), File: fileName(f), Hunk: frag.Header(), NearestOf: len(pre)}
	for i, l := range pre {
		if want+i >= len(lines) {
			e.Line, e.Expected, e.Found = int64(want+i+1), string(l), "(end of file)"
			break
		}
		if !bytes.Equal(lines[want+i], l) {
			e.Line, e.Expected, e.Found = int64(want+i+1), string(l), string(lines[want+i])
			break
		}
	}
	best, bestAt := 0, -1
	for at := 0; at+len(pre) <= len(lines); at++ {
		n := 0
		for i, l := range pre {
			if bytes.Equal(lines[at+i], l) {
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
