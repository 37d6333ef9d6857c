package source

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/gitstore"
)

// Materialize makes dst (which must not exist; its parent must) a complete
// git work tree at BaseCommit. Every file is checked against its blob hash
// while it is copied from the cache, unless its stat data shows it is as
// the fetch wrote it (see statcache.go). A damaged entry (the cheap checks of
// Fetch cannot see every byte) is dropped with one notice and fetched
// again, and dst is made from the fresh copy; t then describes that copy.
// An entry `cache prune` removed since Fetch is fetched again the same
// way. On failure dst does not exist. The pack is hard-linked (or copied) into
// dst/.git; work-tree files are always copied, because users edit them.
func (t *Tree) Materialize(ctx context.Context, dst string) error {
	if t.entry == nil {
		return errors.New("materialize: the tree does not come from source.Fetch")
	}
	err := t.materializeHeld(ctx, dst)
	if errors.Is(err, errEntryGone) && t.req != nil && ctx.Err() == nil {
		fresh, ferr := Fetch(ctx, *t.req)
		if ferr != nil {
			return ferr
		}
		*t = *fresh
		err = t.materializeHeld(ctx, dst)
	}
	if !errors.Is(err, ErrCorrupt) || t.req == nil || ctx.Err() != nil {
		return t.describe(dst, err)
	}
	reason := strings.TrimPrefix(err.Error(), ErrCorrupt.Error()+": ")
	t.req.notice("cache entry %s is damaged (%s); dropped it and fetching again", t.dir, shortReason(errors.New(reason)))
	if derr := dropEntry(ctx, t.dir); derr != nil {
		return fmt.Errorf("%w (and dropping the entry failed: %v)", t.describe(dst, err), derr)
	}
	fresh, ferr := Fetch(ctx, *t.req)
	if ferr != nil {
		return ferr
	}
	*t = *fresh
	return t.describe(dst, t.materializeHeld(ctx, dst))
}

// describe names dst and, for a damaged entry, the entry in err.
func (t *Tree) describe(dst string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrCorrupt):
		return fmt.Errorf("materialize %s from cache entry %s: %w (the entry is dropped at the next fetch)", dst, t.dir, err)
	}
	return err
}

// materialize is one attempt of Materialize from the entry as it is.
func (t *Tree) materialize(ctx context.Context, dst string) (err error) {
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("materialize %s: it already exists (choose a new folder or remove it)", dst)
	}
	if fi, err := os.Stat(filepath.Dir(dst)); err != nil || !fi.IsDir() {
		return fmt.Errorf("materialize %s: parent folder %s does not exist", dst, filepath.Dir(dst))
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return fmt.Errorf("materialize %s: %w", dst, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(dst)
			if errors.Is(err, ErrCorrupt) {
				markCorrupt(t.dir, err)
			} else {
				err = fmt.Errorf("materialize %s: %w", dst, err)
			}
		}
	}()

	packCheck := make(chan error, 1)
	go func() { packCheck <- t.verifyPackChecksums() }()

	entries, err := t.copyFiles(ctx, dst)
	if perr := <-packCheck; err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	gitDir := filepath.Join(dst, ".git")
	if err := writeGitDir(gitDir, t.entry, false); err != nil {
		return err
	}
	if err := t.linkPack(gitDir); err != nil {
		return err
	}
	return writeIndex(filepath.Join(gitDir, "index"), entries)
}

// copyFiles copies the files' contents from the blob store into dst in
// parallel, verifying each against its blob hash unless the store's stat
// data vouches for it, and returns their index entries.
func (t *Tree) copyFiles(ctx context.Context, dst string) ([]indexEntry, error) {
	files := t.entry.Files
	src, err := openBlobSource(t.blobs, readStatSnapshot(t.dir))
	if err != nil {
		return nil, err
	}
	defer src.close()
	// Files are dated a second before the index is written, so git never
	// sees them as "racily clean" and re-hashes them on the first status.
	stamp := time.Now().Add(-time.Second)
	out := make([]indexEntry, len(files))
	err = writeTree(dst, files, func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, err := copyOne(src, dst, files[i], stamp)
		out[i] = e
		return err
	})
	return out, err
}

// blobSource reads the files' contents out of an entry's blob store.
type blobSource struct {
	fd int
	// trusted is true when the store's stat data is as recorded: its
	// ranges are copied without being read here.
	trusted bool
}

func openBlobSource(name string, stats *statSnapshot) (blobSource, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return blobSource{}, corruptf("%v", &os.PathError{Op: "open", Path: name, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return blobSource{}, corruptf("%v", &os.PathError{Op: "stat", Path: name, Err: err})
	}
	return blobSource{fd: fd, trusted: stats.unchanged(statOfUnix(&st))}, nil
}

func (s blobSource) close() { unix.Close(s.fd) }

// ReadAt reads the store at off (io.ReaderAt).
func (s blobSource) ReadAt(p []byte, off int64) (int, error) {
	for {
		n, err := unix.Pread(s.fd, p, off)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// hashedFiles counts the regular files whose cached content Materialize
// read and hashed (tests check that the stat data spares them).
var hashedFiles atomic.Int64

// verified reads f's content and checks it against its blob hash.
func (s blobSource) verified(f fileEntry, want [20]byte) ([]byte, error) {
	data := make([]byte, f.Size)
	if _, err := io.ReadFull(io.NewSectionReader(s, f.Offset, f.Size), data); err != nil {
		return nil, corruptf("%s: reading %d bytes at %d of the blob store: %v", f.Path, f.Size, f.Offset, err)
	}
	if got := gitformat.ObjectID("blob", data); got != want {
		return nil, corruptf("file %s has content hash %x, the tree has blob %s", f.Path, got, f.Hash)
	}
	return data, nil
}

// copyOne creates one file, symlink or submodule folder in dstRoot and
// stats the result. A regular file's content is copied in the kernel when
// the store is trusted, else read and checked against its blob hash;
// symlink targets are always checked.
func copyOne(src blobSource, dstRoot string, f fileEntry, stamp time.Time) (indexEntry, error) {
	dst := filepath.Join(dstRoot, filepath.FromSlash(f.Path))
	want, err := parseHash(f.Hash)
	if err != nil {
		return indexEntry{}, corruptf("%s: %v", f.Path, err)
	}
	e := indexEntry{path: f.Path, mode: f.indexMode(), hash: want}
	switch {
	case f.isGitlink():
		return e, os.Mkdir(dst, 0o755)
	case f.isSymlink():
		target, err := src.verified(f, want)
		if err != nil {
			return e, err
		}
		if err := os.Symlink(string(target), dst); err != nil {
			return e, err
		}
		if err := setMtime(dst, stamp); err != nil {
			return e, err
		}
		return e, statInto(dst, &e)
	}
	perm := os.FileMode(0o644)
	if f.isExec() {
		perm = 0o755
	}
	fill := func(out int) error { return copyRange(src.fd, f.Offset, out, f.Size) }
	if !src.trusted {
		hashedFiles.Add(1)
		data, err := src.verified(f, want)
		if err != nil {
			return e, err
		}
		fill = func(out int) error { return writeAll(out, data) }
	}
	written, err := newStamped(dst, perm, stamp, fill)
	if err != nil {
		return e, err
	}
	fillStatUnix(&written, &e)
	return e, nil
}

// copyByReading is copyRange where the kernel cannot copy between the two
// files.
func copyByReading(in int, off int64, out int, size int64) error {
	n, err := io.CopyBuffer(fdWriter(out), io.NewSectionReader(blobSource{fd: in}, off, size), make([]byte, min(size, 1<<20)))
	if err == nil && n < size {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// fdWriter writes to a raw descriptor.
type fdWriter int

func (w fdWriter) Write(p []byte) (int, error) {
	if err := writeAll(int(w), p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeAll writes data to a raw descriptor.
func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// writeNew writes a file that must not exist yet with perm (less the umask,
// as git checks files out).
func writeNew(name string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// verifyPackChecksums recomputes the SHA-1 trailers of the pack and its
// index, which cover every object byte.
func (t *Tree) verifyPackChecksums() error {
	dir := gitstore.PackDir(t.GitDir)
	for _, name := range []string{t.entry.Pack + ".pack", t.entry.Pack + ".idx"} {
		if err := verifyTrailer(filepath.Join(dir, name)); err != nil {
			return corruptf("%s: %v", name, err)
		}
	}
	return nil
}

func verifyTrailer(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() < 20 {
		return errors.New("truncated")
	}
	h := sha1.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size()-20)); err != nil {
		return err
	}
	trailer := make([]byte, 20)
	if _, err := f.ReadAt(trailer, fi.Size()-20); err != nil {
		return err
	}
	if !bytes.Equal(h.Sum(nil), trailer) {
		return fmt.Errorf("checksum %x does not match its content", trailer)
	}
	return nil
}

// linkPack hard-links the pack and its index into gitDir (packs are never
// modified in place, so sharing them is safe), copying across file systems.
func (t *Tree) linkPack(gitDir string) error {
	for _, ext := range []string{".pack", ".idx"} {
		src := filepath.Join(gitstore.PackDir(t.GitDir), t.entry.Pack+ext)
		dst := filepath.Join(gitstore.PackDir(gitDir), t.entry.Pack+ext)
		if err := os.Link(src, dst); err == nil {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return corruptf("%v", err)
		}
		if err := writeNew(dst, data, 0o444); err != nil {
			return err
		}
	}
	return nil
}

// copyWorkers is how many files are copied at once: file creation waits on
// the file system more than on the CPU, so a few more than the CPUs.
func copyWorkers() int {
	return min(max(2*runtime.GOMAXPROCS(0), 4), 16)
}
