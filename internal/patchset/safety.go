package patchset

import (
	"os"
	"path"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/epp-build/epp-build/internal/gitpath"
)

// checkPaths refuses paths that would escape the tree or reach into git's
// own files, under any name git refuses (see gitpath.go). Paths through a
// symlink are checked later, against the tree being patched, and so is the
// mode of a file diff without mode lines (a rename of a symlink), which
// only that tree knows.
func checkPaths(p *Patch) error {
	for _, f := range p.Files {
		oldLink := headerSymlink(f.OldMode)
		newLink := headerSymlink(f.NewMode) || f.NewMode == 0 && !f.IsNew && oldLink
		if err := checkPath(p, f.OldName, oldLink); err != nil {
			return err
		}
		if err := checkPath(p, f.NewName, newLink); err != nil {
			return err
		}
		if f.OldName == "" && f.NewName == "" {
			return &UnsafeError{Patch: p.Name(), Path: "", Reason: "a file diff without a file name"}
		}
	}
	return nil
}

// checkPath refuses name as the path of a symlink or of a file.
func checkPath(p *Patch, name string, symlink bool) error {
	if name == "" {
		return nil
	}
	reason := unsafePath(name)
	if reason == "" {
		reason = gitpath.AliasReason(name, symlink)
	}
	if reason != "" {
		return &UnsafeError{Patch: p.Name(), Path: name, Reason: reason}
	}
	return nil
}

func headerSymlink(m os.FileMode) bool {
	c, ok := canonMode(m)
	return ok && isSymlink(c)
}

func unsafePath(name string) string {
	switch {
	case strings.HasPrefix(name, "/"):
		return "absolute paths are not allowed; patch paths are relative to the upstream tree"
	case strings.ContainsRune(name, 0):
		return "contains a NUL byte"
	case strings.Contains(name, "\\"):
		return "contains a backslash; use forward slashes"
	}
	for _, part := range strings.Split(name, "/") {
		switch {
		case part == "..":
			return "climbs out of the tree with '..'"
		case part == "." || part == "":
			return "is not a clean path (empty or '.' component)"
		case strings.EqualFold(part, ".git"):
			return "writes into .git, which a patch must never touch"
		}
	}
	if path.Clean(name) != name {
		return "is not a clean path"
	}
	return ""
}

// targetName is the path a file diff writes (or deletes, for a delete).
func targetName(f *gitdiff.File) string {
	if f.IsDelete {
		return f.OldName
	}
	return f.NewName
}
