package filetree

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Copy copies the folders, regular files and symlinks under src to dst,
// leaving out the folders below src named in skip. dst is removed first so
// no file of an earlier copy survives into a build.
func Copy(src, dst string, skip ...string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return walk(src, skip, func(path, rel string, info fs.FileInfo) error {
		target := filepath.Join(dst, rel)
		switch {
		case info.IsDir():
			return os.MkdirAll(target, 0o755)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		default:
			return CopyFile(path, target, info.Mode().Perm())
		}
	})
}

// CopyFile copies the file src to dst, making dst's folder if need be. The
// copy gets the permission bits perm, or src's own when perm is 0, and is
// always writable by its owner so a later copy or clean-up can replace it.
func CopyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if perm == 0 {
		st, err := in.Stat()
		if err != nil {
			return err
		}
		perm = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm|0o200)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	return out.Close()
}
