// Package atomicfile replaces a file so that a reader, or the next run after
// a kill, finds either its old content or the new, never a part of it.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write puts data at path with the permission bits perm. The data goes to
// a temporary file beside path first, under a name no one else can have
// made: a fixed name such as path+".tmp" could be a FIFO that blocks the
// write or a symlink that sends it elsewhere. The rename that follows is
// atomic within one file system. On failure nothing is left behind and
// path is unchanged.
func Write(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
