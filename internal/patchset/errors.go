package patchset

import (
	"fmt"
	"strings"
)

// ParseError is a patch that cannot be read.
type ParseError struct {
	Patch string
	Err   error
}

func (e *ParseError) Error() string { return fmt.Sprintf("patch %s: %v", e.Patch, e.Err) }
func (e *ParseError) Unwrap() error { return e.Err }

// UnsafeError is a patch refused before anything was written because it
// would write outside the tree, into .git, or through a symlink.
type UnsafeError struct {
	Patch  string
	Path   string
	Reason string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("patch %s: refused: %s %q: %s", e.Patch, "path", e.Path, e.Reason)
}

// ConflictError is a hunk whose context is not in the target file.
type ConflictError struct {
	Patch string
	File  string
	Hunk  string // the @@ header
	// Line is the 1-based line of the target file where the hunk was
	// expected, and Expected/Found the first line that differs there.
	Line     int64
	Expected string
	Found    string
	// Nearest is where most of the hunk matches (0 when nowhere), and
	// NearestMatched/NearestOf how much of it does.
	Nearest        int64
	NearestMatched int
	NearestOf      int
	// NearestSkipped says the hunk and file were too large to search.
	NearestSkipped bool
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "patch %s does not apply: file %s, hunk %s: ", e.Patch, e.File, e.Hunk)
	fmt.Fprintf(&b, "line %d: expected %q, found %q", e.Line, trimEOL(e.Expected), trimEOL(e.Found))
	switch {
	case e.NearestSkipped:
		fmt.Fprintf(&b, "; the hunk (%d lines) and the file are too large to search for a nearest fit", e.NearestOf)
	case e.Nearest > 0:
		fmt.Fprintf(&b, "; nearest fit at line %d (%d of %d lines match)", e.Nearest, e.NearestMatched, e.NearestOf)
	default:
		b.WriteString("; the hunk fits nowhere in the file")
	}
	b.WriteString(". Fix: refresh the patch against the pinned upstream (apply the rest, edit, `epp-build export`)")
	return b.String()
}

// FileError is a file-level problem: the patch modifies a file that does
// not exist, creates one that does, and the like.
type FileError struct {
	Patch  string
	File   string
	Reason string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("patch %s does not apply: file %s: %s", e.Patch, e.File, e.Reason)
}

func trimEOL(s string) string { return strings.TrimSuffix(s, "\n") }
