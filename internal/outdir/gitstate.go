package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/inputfile"
)

// userGitState are the parts of an output tree's .git that belong to the
// user rather than to the series: the config (remotes, branch upstreams,
// settings) and the hooks. A tree replaced by another version's keeps
// them; the objects, refs and index are the new series'.
var userGitState = []string{"config", "hooks"}

// gitStateLimit bounds one carried file: a config or a hook is a few KB.
var gitStateLimit = inputfile.Limit{Bytes: 16 << 20, What: "a git config or hook"}

// carryGitState copies the user's git state from the tree in out to the
// new tree in work and returns what it copied (paths under .git). Only
// regular files and symlinks are copied, never followed.
func carryGitState(out, work string) ([]string, error) {
	var kept []string
	for _, name := range userGitState {
		src, dst := filepath.Join(out, ".git", name), filepath.Join(work, ".git", name)
		fi, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return kept, err
		}
		if fi.IsDir() {
			n, err := copyGitDir(src, dst)
			if err != nil {
				return kept, fmt.Errorf("keep .git/%s of %s: %w", name, out, err)
			}
			if n > 0 {
				kept = append(kept, ".git/"+name)
			}
			continue
		}
		if err := copyGitFile(src, dst, fi); err != nil {
			return kept, fmt.Errorf("keep .git/%s of %s: %w", name, out, err)
		}
		kept = append(kept, ".git/"+name)
	}
	return kept, nil
}

// copyGitDir copies the regular files and symlinks under src into dst and
// counts them.
func copyGitDir(src, dst string) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
			return nil // a FIFO or a device is not the user's hook
		}
		n++
		return copyGitFile(p, target, fi)
	})
	return n, err
}

func copyGitFile(src, dst string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		link, err := os.Readlink(src)
		if err != nil {
			return err
		}
		_ = os.Remove(dst)
		return os.Symlink(link, dst)
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	data, err := inputfile.ReadFile(src, "", gitStateLimit)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(dst, data, fi.Mode().Perm())
}
