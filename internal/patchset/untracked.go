package patchset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// A re-apply treats the user's untracked and ignored files (a build's
// outputs, go.work.sum, a staged C API library) as `git checkout` does:
// they stay where they are, in place or carried into the new tree, and
// only a file of the new series at their path stops it.

// UntrackedInTheWayError is a re-apply whose series would write where an
// untracked (or ignored) file of the user's is.
type UntrackedInTheWayError struct {
	Dir   string
	Files []string
}

func (e *UntrackedInTheWayError) Error() string {
	names := make([]string, len(e.Files))
	for i, f := range e.Files {
		names[i] = textsafe.Escape(f)
	}
	return fmt.Sprintf("output %s: the series would overwrite untracked file(s) of yours: %s. "+
		"Move or delete them (or, to keep them in the series, commit them and export), then apply again; "+
		"--force replaces the tree and keeps the old one as a backup", e.Dir, strings.Join(names, ", "))
}

// untrackedInTheWay lists the untracked entries (a nested repository is
// "path/") that a file of the new tree at one of paths would overwrite:
// the same path, a folder holding the entry, or a path below an entry
// that is a file.
func untrackedInTheWay(untracked []string, paths []string) []string {
	if len(untracked) == 0 || len(paths) == 0 {
		return nil
	}
	entries := map[string]string{} // path without a trailing slash -> entry
	sorted := make([]string, 0, len(untracked))
	for _, u := range untracked {
		p := strings.TrimSuffix(u, "/")
		entries[p] = u
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	hit := map[string]bool{}
	for _, p := range paths {
		if u, ok := entries[p]; ok {
			hit[u] = true
		}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if u, ok := entries[d]; ok {
				hit[u] = true
			}
		}
		prefix := p + "/"
		for i := sort.SearchStrings(sorted, prefix); i < len(sorted) && strings.HasPrefix(sorted[i], prefix); i++ {
			hit[entries[sorted[i]]] = true
		}
	}
	out := make([]string, 0, len(hit))
	for u := range hit {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// carryUntracked copies the untracked entries of out into the new tree
// work, which has none of them (checked first). It refuses, naming them,
// when work holds something at an entry's path.
func carryUntracked(out, work string, untracked []string) error {
	var inWay []string
	for _, u := range untracked {
		if inNewTree(work, strings.TrimSuffix(u, "/")) {
			inWay = append(inWay, u)
		}
	}
	if len(inWay) > 0 {
		return &UntrackedInTheWayError{Dir: out, Files: inWay}
	}
	for _, u := range untracked {
		rel := filepath.FromSlash(strings.TrimSuffix(u, "/"))
		src, dst := filepath.Join(out, rel), filepath.Join(work, rel)
		fi, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // gone since the scan
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("keep %s: %w", u, err)
		}
		switch {
		case fi.IsDir():
			err = filetree.Copy(src, dst)
		case fi.Mode()&fs.ModeSymlink != 0:
			var link string
			if link, err = os.Readlink(src); err == nil {
				err = os.Symlink(link, dst)
			}
		case fi.Mode().IsRegular():
			err = filetree.CopyFile(src, dst, fi.Mode().Perm())
		}
		if err != nil {
			return fmt.Errorf("keep %s: %w", u, err)
		}
	}
	return nil
}

// inNewTree is whether the tree in work holds something at rel, or a
// file where one of rel's folders would be.
func inNewTree(work, rel string) bool {
	if _, err := os.Lstat(filepath.Join(work, filepath.FromSlash(rel))); err == nil {
		return true
	}
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(work, filepath.FromSlash(d))); err == nil {
			return !fi.IsDir()
		}
	}
	return false
}
