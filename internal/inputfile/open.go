package inputfile

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/killpoint"
)

// File is an open input whose reads stop at its limit.
type File struct {
	f     *os.File
	path  string
	limit Limit
	read  int64
}

// Open opens path as a regular file of at most limit.Bytes. With root set,
// path must resolve, symlinks followed, to a file inside root; without it
// a symlink is followed anywhere (a patch named on the command line).
//
// A refusal is an *Error. Other failures are the os errors as they are, so
// errors.Is(err, fs.ErrNotExist) still tells a missing file apart.
func Open(path, root string, limit Limit) (*File, error) {
	target, flags := path, os.O_RDONLY|openFlags
	if root != "" {
		t, err := inside(path, root)
		if err != nil {
			return nil, err
		}
		// The path checked is the one opened: a symlink put in its place
		// since is refused by the kernel rather than followed.
		target, flags = t, flags|noFollow
	}
	f, err := os.OpenFile(target, flags, 0)
	if err != nil {
		// A socket cannot be opened at all; say what it is.
		if fi, serr := os.Stat(target); serr == nil && !fi.Mode().IsRegular() {
			return nil, notRegular(path, fi.Mode(), limit)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, fi.Mode(), limit)
	}
	if fi.Size() > limit.Bytes {
		f.Close()
		return nil, tooLarge(path, fi.Size(), limit)
	}
	return &File{f: f, path: path, limit: limit}, nil
}

// Read reads on to one byte past the limit, so a file that grew after it
// was opened is refused instead of read to its end.
func (f *File) Read(p []byte) (int, error) {
	killpoint.Block("input-read")
	if rest := f.limit.Bytes + 1 - f.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := f.f.Read(p)
	f.read += int64(n)
	if f.read > f.limit.Bytes {
		return n, tooLarge(f.path, f.read, f.limit)
	}
	return n, err
}

// Stat is the open file's fstat.
func (f *File) Stat() (fs.FileInfo, error) { return f.f.Stat() }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// ReadFile reads the whole input; see Open.
func ReadFile(path, root string, limit Limit) ([]byte, error) {
	f, err := Open(path, root, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil {
		buf.Grow(int(fi.Size()) + 1)
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Check opens the input and closes it again: what a loader does to refuse
// a hostile input before any command reads it.
func Check(path, root string, limit Limit) error {
	f, err := Open(path, root, limit)
	if err != nil {
		return err
	}
	return f.Close()
}

// inside resolves path and refuses it unless it ends inside root.
func inside(path, root string) (string, error) {
	realRoot, err := realPath(root)
	if err != nil {
		return "", err
	}
	target, err := realPath(path)
	if err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(realRoot, target); err != nil || !filepath.IsLocal(rel) {
		what := ""
		if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
			what = " (" + kind(fi.Mode()) + ")"
		}
		return "", &Error{
			Path:    path,
			Problem: fmt.Sprintf("is a symlink to %s%s, outside the recipe folder %s", target, what, root),
			Fix:     "a recipe input must be inside its recipe folder (copy the file in instead of linking to it)",
		}
	}
	return target, nil
}

func realPath(p string) (string, error) {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(r)
}

func notRegular(path string, m fs.FileMode, l Limit) error {
	what := l.What
	if what == "" {
		what = "an input"
	}
	return &Error{Path: path, Problem: "is " + kind(m), Fix: what + " must be a regular file (replace it with the file itself)"}
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file (mode " + m.String() + ")"
}

func tooLarge(path string, size int64, l Limit) error {
	fix := l.Raise
	if fix == "" {
		fix = "check that it is the file it claims to be"
	}
	problem := fmt.Sprintf("is %d bytes, %d over the %d-byte limit for %s", size, size-l.Bytes, l.Bytes, l.What)
	if size == l.Bytes+1 {
		// Read, not stat'ed: it grew while read, so its size is unknown.
		problem = fmt.Sprintf("is over the %d-byte limit for %s", l.Bytes, l.What)
	}
	return &Error{Path: path, Problem: problem, Fix: fix}
}
