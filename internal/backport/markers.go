package backport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/epp-build/epp-build/internal/patchset"
)

// Conflict markers, in the diff3 style of `git am -3`: what the new
// upstream has, what the patch expected (the old pin's lines: the hunk's
// context and removed lines), and what the patch wants there.
const (
	markOurs   = "<<<<<<< ours (new upstream)"
	markBase   = "||||||| base (old pin)"
	markSplit  = "======="
	markTheirs = ">>>>>>> patch"
)

// markConflicts writes what it can of p into the work tree dir after p
// failed to apply as a whole: the hunks that fit go in, each hunk that
// does not becomes a conflict block where it fits best, and a file change
// that is not a text edit of an existing file (a new file that exists, a
// deletion, a rename, a binary or mode change) goes to <file>.rej. It
// returns the files holding markers and the .rej files, in patch order.
func markConflicts(dir string, p *patchset.Patch) ([]string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var marked []string
	for _, f := range p.Files {
		name, conflicted, err := markFile(root, p, f)
		if err != nil {
			return nil, fmt.Errorf("write the conflict of %s into %s: %w", p.Name(), dir, err)
		}
		if conflicted {
			marked = append(marked, name)
		}
	}
	return marked, nil
}

// markFile applies one file's change with markers, or writes its .rej.
func markFile(root *os.Root, p *patchset.Patch, f *gitdiff.File) (string, bool, error) {
	plainEdit := !f.IsNew && !f.IsDelete && !f.IsRename && !f.IsCopy && !f.IsBinary && f.OldName == f.NewName &&
		(f.NewMode == 0 || f.NewMode == f.OldMode) && len(f.TextFragments) > 0
	if f.IsNew && !f.IsBinary {
		if _, err := root.Lstat(f.NewName); errors.Is(err, fs.ErrNotExist) {
			var b strings.Builder
			for _, frag := range f.TextFragments {
				for _, l := range frag.Lines {
					b.WriteString(l.Line)
				}
			}
			if err := mkParent(root, f.NewName); err != nil {
				return "", false, err
			}
			return f.NewName, false, root.WriteFile(f.NewName, []byte(b.String()), modeOf(f.NewMode))
		}
	}
	if plainEdit {
		if fi, err := root.Lstat(f.OldName); err == nil && fi.Mode().IsRegular() {
			src, err := root.ReadFile(f.OldName)
			if err != nil {
				return "", false, err
			}
			out, conflicted := withMarkers(src, f.TextFragments, p.Name())
			return f.OldName, conflicted, root.WriteFile(f.OldName, out, fi.Mode().Perm())
		}
	}
	rej := nameOf(f) + ".rej"
	if err := mkParent(root, rej); err != nil {
		return "", false, err
	}
	return rej, true, root.WriteFile(rej, []byte(f.String()), 0o644)
}

// withMarkers applies the hunks that fit exactly (nearest to where the
// patch expects them, in order) and puts each other hunk in a conflict
// block over the lines where most of it matches.
func withMarkers(src []byte, frags []*gitdiff.TextFragment, patch string) ([]byte, bool) {
	lines := splitKeep(src)
	var out bytes.Buffer
	pos, delta, conflicted := 0, 0, false
	for _, frag := range frags {
		pre, post := sides(frag)
		want := int(frag.OldPosition) - 1 + delta
		if frag.OldLines == 0 {
			want++ // an insertion's position is the line it follows
		}
		at, n, exact := place(lines, pre, pos, want)
		writeLines(&out, lines[pos:at])
		if exact {
			writeLines(&out, post)
		} else {
			conflicted = true
			out.WriteString(markOurs + "\n")
			writeLines(&out, lines[at:at+n])
			out.WriteString(markBase + "\n")
			writeLines(&out, pre)
			out.WriteString(markSplit + "\n")
			writeLines(&out, post)
			out.WriteString(markTheirs + " (" + patch + ")\n")
		}
		delta = at - (want - delta)
		pos = at + n
	}
	writeLines(&out, lines[pos:])
	return out.Bytes(), conflicted
}

// place finds where pre goes in lines, at or after from: the exact match
// nearest to want, else the span where most of pre matches (ties nearest
// to want; want itself when nothing matches). n is how many lines of
// lines the hunk covers there.
func place(lines, pre []string, from, want int) (at, n int, exact bool) {
	want = min(max(want, from), len(lines))
	last := len(lines) - len(pre)
	best, bestScore := -1, -1
	for i := from; i <= last; i++ {
		score := 0
		for k := range pre {
			if lines[i+k] == pre[k] {
				score++
			}
		}
		if score > bestScore || (score == bestScore && abs(i-want) < abs(best-want)) {
			best, bestScore = i, score
		}
	}
	if best >= 0 && bestScore == len(pre) {
		return best, len(pre), true
	}
	if best < 0 || bestScore == 0 {
		best = want
	}
	return best, min(len(pre), len(lines)-best), false
}

// sides are a hunk's preimage (context and removed lines) and postimage
// (context and added lines).
func sides(frag *gitdiff.TextFragment) (pre, post []string) {
	for _, l := range frag.Lines {
		if l.Op != gitdiff.OpAdd {
			pre = append(pre, l.Line)
		}
		if l.Op != gitdiff.OpDelete {
			post = append(post, l.Line)
		}
	}
	return pre, post
}

// writeLines writes lines; one without a newline (the file's last) gets
// one when more text follows inside a conflict block.
func writeLines(w *bytes.Buffer, lines []string) {
	for _, l := range lines {
		w.WriteString(l)
	}
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		w.WriteString("\n")
	}
}

func splitKeep(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// markersLeft lists the marked files that still hold a conflict marker,
// and the .rej files still there.
func markersLeft(dir string, files []string) ([]string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var left []string
	for _, name := range files {
		data, err := root.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(name, ".rej") || hasMarker(data) {
			left = append(left, name)
		}
	}
	return left, nil
}

func hasMarker(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "<<<<<<< ") || strings.HasPrefix(l, "||||||| ") || strings.HasPrefix(l, ">>>>>>> ") {
			return true
		}
	}
	return false
}

func nameOf(f *gitdiff.File) string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}

func mkParent(root *os.Root, name string) error {
	if i := strings.LastIndexByte(name, '/'); i > 0 {
		return root.MkdirAll(name[:i], 0o755)
	}
	return nil
}

func modeOf(m os.FileMode) os.FileMode {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
