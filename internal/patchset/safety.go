package patchset

import (
	"path"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// checkPaths refuses paths that would escape the tree or reach into git's
// own files. Symlinks are checked later, against the tree being patched.
func checkPaths(p *Patch) error {
	for _, f := range p.Files {
		for _, name := range []string{f.OldName, f.NewName} {
			if name == "" {
				continue
			}
			if reason := unsafePath(name); reason != "" {
				return &UnsafeError{Patch: p.Name(), Path: name, Reason: reason}
			}
		}
		if f.OldName == "" && f.NewName == "" {
			return &UnsafeError{Patch: p.Name(), Path: "", Reason: "a file diff without a file name"}
		}
	}
	return nil
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
