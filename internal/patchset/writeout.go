package patchset

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/gitstore"
)

// seriesPaths is every path a series touched, sorted.
func seriesPaths(res *Result) []string {
	changed := map[string]bool{}
	for _, a := range res.Patches {
		for p := range a.Files {
			changed[p] = true
		}
	}
	paths := make([]string, 0, len(changed))
	for p := range changed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// writeOut brings the given paths on disk and in the git index to their
// state in t (absent from t: deleted). It runs only after every patch
// applied in memory.
//
// idx is the index as it is on disk, when the caller has read it already
// (nil: read here).
func writeOut(dir string, t *tree, paths []string, idx *index.Index) error {
	// Deletions first, so a file may replace a directory it emptied.
	for _, p := range paths {
		if _, ok := t.files[p]; !ok {
			if err := removeFile(dir, p); err != nil {
				return err
			}
		}
	}
	for _, p := range paths {
		if f, ok := t.files[p]; ok {
			if f.spill != "" {
				if err := moveSpill(f, filepath.Join(dir, filepath.FromSlash(p))); err != nil {
					return err
				}
				continue
			}
			data, err := t.read(p)
			if err != nil {
				return fmt.Errorf("write %s: %w", p, err)
			}
			if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), f.mode, data); err != nil {
				return err
			}
		}
	}
	return gitstore.UpdateIndex(dir, idx, paths, func(p string) (filemode.FileMode, plumbing.Hash, bool) {
		f, ok := t.files[p]
		if !ok {
			return 0, plumbing.ZeroHash, false
		}
		return f.mode, f.hash, true
	})
}

func writeFile(full string, mode filemode.FileMode, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	// Replace rather than rewrite in place, so a file that shares storage
	// with anything else is never changed underneath it.
	var err error
	if mode == filemode.Symlink {
		err = atomicfile.Symlink(string(data), full)
	} else {
		err = atomicfile.Write(full, data, filePerm(mode))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", full, err)
	}
	return nil
}

// moveSpill puts a spilled file in its place: it already holds the
// content, so it is renamed rather than copied. Later reads of the entry
// go to the work tree.
func moveSpill(f *fileEntry, full string) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(f.spill, filePerm(f.mode)); err != nil {
		return fmt.Errorf("write %s: %w", full, err)
	}
	if err := os.Rename(f.spill, full); err != nil {
		return fmt.Errorf("write %s: %w", full, err)
	}
	f.spill = ""
	return nil
}

func filePerm(mode filemode.FileMode) os.FileMode {
	if mode == filemode.Executable {
		return 0o755
	}
	return 0o644
}

func removeFile(dir, p string) error {
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	// Prune directories the delete left empty, as git does.
	for d := filepath.Dir(full); d != dir && len(d) > len(dir); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			break
		}
	}
	return nil
}
