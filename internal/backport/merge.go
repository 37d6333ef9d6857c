package backport

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/epp-build/epp-build/internal/diff3"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// A patch that does not apply as it is goes in by a three-way merge per
// file, as `git am -3` does: base is the file the patch was made against,
// ours the file in the work tree, theirs base with the patch applied.
// The changes of both sides are combined; where they collide the file
// gets diff3 conflict markers around the lines in question only. A file
// that merged cleanly, and a new file, are staged; a conflicted file is
// left unstaged for the user; what cannot be merged (no base known, a
// binary, a rename, a mode change, a deletion of a changed file) goes to
// FILE.rej.

// baseOf returns the file f's change was made against, if it is known.
type baseOf func(f *gitdiff.File) ([]byte, bool, error)

// merged is what a merge of one patch left in the work tree.
type merged struct {
	// Marked are the files with conflict markers and the .rej files.
	Marked []string
}

// mergePatch merges each file change of p into the work tree dir.
func mergePatch(dir string, p *patchset.Patch, base baseOf, l diff3.Labels) (*merged, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var res merged
	var stage, unstage []string
	for _, f := range p.Files {
		out, err := mergeFile(root, f, base, l)
		if err != nil {
			return nil, fmt.Errorf("merge %s of %s into %s: %w", nameOf(f), p.Name(), dir, err)
		}
		if out.rej {
			rej := nameOf(f) + ".rej"
			if err := mkParent(root, rej); err != nil {
				return nil, err
			}
			if err := root.WriteFile(rej, []byte(f.String()), 0o644); err != nil {
				return nil, err
			}
			res.Marked = append(res.Marked, rej)
			continue
		}
		if out.conflicted {
			res.Marked = append(res.Marked, out.name)
			continue
		}
		if out.removed {
			unstage = append(unstage, out.name)
		} else {
			stage = append(stage, out.name)
		}
	}
	return &res, stageFiles(dir, stage, unstage)
}

// fileMerge is the outcome of one file: written (and staged unless
// conflicted), removed, or rejected.
type fileMerge struct {
	name                     string
	conflicted, removed, rej bool
}

func mergeFile(root *os.Root, f *gitdiff.File, base baseOf, l diff3.Labels) (fileMerge, error) {
	name := nameOf(f)
	if f.IsBinary || f.IsRename || f.IsCopy || f.OldName != f.NewName && !f.IsNew && !f.IsDelete ||
		f.NewMode != 0 && f.OldMode != 0 && f.NewMode != f.OldMode {
		return fileMerge{name: name, rej: true}, nil
	}
	ours, mode, exists, err := readRegular(root, name)
	if errors.Is(err, errNotRegular) {
		return fileMerge{name: name, rej: true}, nil // a symlink or folder: no text to merge into
	}
	if err != nil {
		return fileMerge{}, err
	}
	if f.IsNew {
		theirs, err := applied(nil, f)
		if err != nil {
			return fileMerge{name: name, rej: true}, nil
		}
		if !exists {
			if err := mkParent(root, name); err != nil {
				return fileMerge{}, err
			}
			return fileMerge{name: name}, root.WriteFile(name, theirs, modeOf(f.NewMode))
		}
		// Added on both sides: merged over an empty base, as git does.
		return writeMerge(root, name, mode, diff3.Merge(nil, ours, theirs, l))
	}
	if !exists {
		// Upstream deleted (or never had) the file: nothing to merge into.
		if f.IsDelete {
			return fileMerge{name: name, removed: true}, nil
		}
		return fileMerge{name: name, rej: true}, nil
	}
	b, known, err := base(f)
	if err != nil {
		return fileMerge{}, err
	}
	if !known {
		// No base: the change goes in only where it applies as it is.
		theirs, err := applied(ours, f)
		if err != nil {
			return fileMerge{name: name, rej: true}, nil
		}
		if f.IsDelete {
			return removeFile(root, name)
		}
		return fileMerge{name: name}, root.WriteFile(name, theirs, mode)
	}
	theirs, err := applied(b, f)
	if err != nil {
		return fileMerge{name: name, rej: true}, nil // the base is not what the patch was made against
	}
	if f.IsDelete {
		if !bytes.Equal(ours, b) {
			return fileMerge{name: name, rej: true}, nil // upstream changed a file the patch deletes
		}
		return removeFile(root, name)
	}
	return writeMerge(root, name, mode, diff3.Merge(b, ours, theirs, l))
}

func writeMerge(root *os.Root, name string, mode os.FileMode, m diff3.Result) (fileMerge, error) {
	return fileMerge{name: name, conflicted: !m.Clean()}, root.WriteFile(name, m.Text, mode)
}

func removeFile(root *os.Root, name string) (fileMerge, error) {
	return fileMerge{name: name, removed: true}, root.Remove(name)
}

var errNotRegular = errors.New("not a regular file")

// readRegular reads name if it is a regular file.
func readRegular(root *os.Root, name string) ([]byte, os.FileMode, bool, error) {
	fi, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, fmt.Errorf("%s: %w", name, errNotRegular)
	}
	data, err := root.ReadFile(name)
	return data, fi.Mode().Perm(), true, err
}

// applied is src with f's text change applied exactly (no offsets).
func applied(src []byte, f *gitdiff.File) ([]byte, error) {
	var out bytes.Buffer
	if err := gitdiff.Apply(&out, bytes.NewReader(src), f); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// stageFiles puts the cleanly merged and new files in the index, and
// takes the removed ones out, as git am -3 leaves them.
func stageFiles(dir string, add, remove []string) error {
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	for _, name := range add {
		if err := wt.AddWithOptions(&git.AddOptions{Path: name, SkipStatus: true}); err != nil {
			return fmt.Errorf("stage %s: %w", name, err)
		}
	}
	for _, name := range remove {
		if _, err := wt.Remove(name); err != nil && !errors.Is(err, index.ErrEntryNotFound) {
			return fmt.Errorf("stage the removal of %s: %w", name, err)
		}
	}
	return nil
}
