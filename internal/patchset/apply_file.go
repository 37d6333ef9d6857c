package patchset

import (
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
		if isSymlink(oldMode) {
			if err := checkPath(p, f.OldName, true); err != nil {
				return nil, err
			}
		}
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
		if out.size() != 0 {
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
	// Only now is the mode of a rename or copy without mode lines known.
	if isSymlink(mode) {
		if err := checkPath(p, f.NewName, true); err != nil {
			return nil, err
		}
	}
	if f.IsRename {
		t.remove(f.OldName)
	}
	if err := t.setContent(f.NewName, mode, out); err != nil {
		return nil, err
	}
	return offsets, nil
}

// applyContent applies the text or binary fragments of f to src.
func applyContent(p *Patch, f *gitdiff.File, src []byte) (content, []Offset, error) {
	if f.IsBinary {
		out, err := applyBinary(p, f, src)
		return bytesContent(out), nil, err
	}
	if len(f.TextFragments) == 0 {
		return bytesContent(src), nil, nil
	}
	return applyText(p, f, src)
}
