package patchset

import (
	"fmt"
	"os"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// The file-type bits of a git mode, as in st_mode.
const (
	typeMask    = 0o170000
	typeRegular = 0o100000
	typeSymlink = 0o120000
)

// canonMode reduces a mode read from a patch to the one git records, as
// git apply does: a regular file keeps only whether its owner may execute
// it (100664 is 100644, 104755 is 100755) and a symlink is 120000. It
// returns false for every other type: gitlinks (160000), directories and
// modes without a file type.
func canonMode(m os.FileMode) (filemode.FileMode, bool) {
	switch uint32(m) & typeMask {
	case typeRegular:
		if m&0o100 != 0 {
			return filemode.Executable, true
		}
		return filemode.Regular, true
	case typeSymlink:
		return filemode.Symlink, true
	}
	return 0, false
}

// checkModes refuses a file diff whose header names a mode that is not a
// regular file or a symlink, or that turns one into the other in place
// (git writes a type change as a delete and a create).
func checkModes(p *Patch) error {
	for _, f := range p.Files {
		oldLine, newLine := "old mode", "new mode"
		if f.IsDelete {
			oldLine = "deleted file mode"
		}
		if f.IsNew {
			newLine = "new file mode"
		}
		oldMode, oldOK := canonMode(f.OldMode)
		newMode, newOK := canonMode(f.NewMode)
		switch {
		case f.OldMode != 0 && !oldOK:
			return modeRefused(p, f, oldLine, f.OldMode)
		case f.NewMode != 0 && !newOK:
			return modeRefused(p, f, newLine, f.NewMode)
		case f.OldMode != 0 && f.NewMode != 0 && isSymlink(oldMode) != isSymlink(newMode):
			return typeChangeRefused(p, f, oldMode, newMode)
		}
	}
	return nil
}

func isSymlink(m filemode.FileMode) bool { return m == filemode.Symlink }

func modeRefused(p *Patch, f *gitdiff.File, line string, m os.FileMode) error {
	return &UnsafeError{Patch: p.Name(), Path: fileName(f), Reason: fmt.Sprintf(
		"%s %06o is not a file mode a patch may set: only 100644, 100755 and 120000 are (git apply refuses it too); fix the mode line",
		line, uint32(m))}
}

func typeChangeRefused(p *Patch, f *gitdiff.File, from, to filemode.FileMode) error {
	return &UnsafeError{Patch: p.Name(), Path: fileName(f), Reason: fmt.Sprintf(
		"changes mode %06o to %06o, turning a file into a symlink or back in place (git apply refuses it); write it as a delete and a create, as git diff does",
		uint32(from), uint32(to))}
}
