// Package atomicfile replaces a file so that a reader, or the next run after
// a kill or a power loss, finds either its old content or the new, never a
// part of it.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Write puts data at path with the permission bits perm. On failure
// nothing is left behind and path is unchanged.
func Write(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is the new content of one path while it is written: the path
// keeps its old content until Commit, and Abort (or a failed Commit)
// leaves no trace of the new.
type File struct {
	f    *os.File
	path string
	perm fs.FileMode
	done bool
}

// Create starts replacing path, for writers that stream more than they
// should hold in memory. The content goes to a temporary file beside path,
// under a name no one else can have made: a fixed name such as path+".tmp"
// could be a FIFO that blocks the write, a symlink that sends it elsewhere,
// a file the tree itself holds, or another writer's temporary file.
// Beside, because the rename that installs it is atomic only within one
// file system. A kill before Commit leaves the temporary file; its name
// matches IsTemp, so that whoever writes path can remove it the next time
// (RemoveLeftovers).
func Create(path string, perm fs.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+tempMark+"*.tmp")
	if err != nil {
		return nil, err
	}
	return &File{f: f, path: path, perm: perm}, nil
}

// Write appends p to the new content.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, fmt.Errorf("write %s: %w", f.path, fs.ErrClosed)
	}
	return f.f.Write(p)
}

// ReadFrom appends what r holds, letting the kernel copy from a file
// (copy_file_range) instead of through a buffer.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	if f.done {
		return 0, fmt.Errorf("write %s: %w", f.path, fs.ErrClosed)
	}
	return f.f.ReadFrom(r)
}

// Commit puts the new content at the path. The file is synced before the
// rename, or a crash could leave the new name on empty or partial data;
// the folder after, or the rename itself could be lost. On failure the
// path keeps its old content and the temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: %w", f.path, fs.ErrClosed)
	}
	f.done = true
	tmp := f.f.Name()
	err := f.f.Chmod(f.perm)
	if err == nil {
		err = syncFile(f.f)
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := syncDir(filepath.Dir(f.path)); err != nil {
		return fmt.Errorf("%s is replaced but may not survive a crash: %w", f.path, err)
	}
	return nil
}

// Abort drops the new content; the path keeps its old. After Commit it
// does nothing, so it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}

// Symlink puts a symbolic link to target at path, replacing what is
// there, under the same rules as Write: made beside under a name no one
// else has, then renamed.
func Symlink(target, path string) error {
	for {
		tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+tempMark+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		err := os.Symlink(target, tmp)
		if errors.Is(err, fs.ErrExist) {
			continue // someone else's name: draw another, as os.CreateTemp does
		}
		if err != nil {
			return err
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return err
		}
		if err := syncDir(filepath.Dir(path)); err != nil {
			return fmt.Errorf("%s is replaced but may not survive a crash: %w", path, err)
		}
		return nil
	}
}

// tempMark is in the name of every temporary file this package makes,
// ".<base>.epp-build-<random>.tmp": a run killed between making one and
// renaming it leaves it under a name drawn at random, which the next run
// can find only by this pattern (IsTemp), and which no one else makes, so
// that removing what matches never removes a file of the user's.
const tempMark = ".epp-build-"

// tempDigits are the characters of the random part: os.CreateTemp draws
// decimal digits, Symlink base-36 ones.
const tempDigits = "0123456789abcdefghijklmnopqrstuvwxyz"

// IsTemp is whether name, a file name without its folder, is a temporary
// file of Create, Write or Symlink: one left beside its target when a run
// was killed before renaming it.
func IsTemp(name string) bool {
	_, ok := tempTarget(name)
	return ok
}

// tempTarget is the name of the file the temporary file name was to
// replace.
func tempTarget(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return "", false
	}
	if rest, ok = strings.CutSuffix(rest, ".tmp"); !ok {
		return "", false
	}
	i := strings.LastIndex(rest, tempMark)
	if i <= 0 {
		return "", false
	}
	random := rest[i+len(tempMark):]
	if random == "" || strings.Trim(random, tempDigits) != "" {
		return "", false
	}
	return rest[:i], true
}

// RemoveLeftovers removes the temporary files (IsTemp) that killed runs
// left in the folder dir, not below it, and returns their paths. Only a
// file or a symlink is removed, never a folder. The caller must be the
// only writer of dir: a live writer's temporary file matches too.
func RemoveLeftovers(dir string) ([]string, error) {
	return removeLeftovers(dir, func(string) bool { return true })
}

// RemoveLeftoversOf removes the temporary files that killed runs left
// beside path while replacing it, and returns their paths. The caller
// must be the only writer of path.
func RemoveLeftoversOf(path string) ([]string, error) {
	base := filepath.Base(path)
	return removeLeftovers(filepath.Dir(path), func(target string) bool { return target == base })
}

func removeLeftovers(dir string, of func(target string) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		target, ok := tempTarget(e.Name())
		if !ok || !of(target) || !(e.Type().IsRegular() || e.Type() == fs.ModeSymlink) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// syncFile is replaced by tests to fail a write after its data is out.
var syncFile = (*os.File).Sync

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems cannot sync a folder and say so; the rename is
	// all they offer.
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}
