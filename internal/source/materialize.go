package source

import (
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Materialize makes dst (which must not exist; its parent must) a complete
// git work tree at BaseCommit. Every file is checked against its blob hash
// while it is copied from the cache, unless its stat data shows it is as
// the fetch wrote it (see statcache.go). A damaged entry (the cheap checks of
// Fetch cannot see every byte) is dropped with one notice and fetched
// again, and dst is made from the fresh copy; t then describes that copy.
// On failure dst does not exist. The pack is hard-linked (or copied) into
// dst/.git; work-tree files are always copied, because users edit them.
func (t *Tree) Materialize(ctx context.Context, dst string) error {
	if t.entry == nil {
		return errors.New("materialize: the tree does not come from source.Fetch")
	}
	err := t.materialize(ctx, dst)
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
	return t.describe(dst, t.materialize(ctx, dst))
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

// copyFiles copies the cached files into dst in parallel, verifying each
// against its blob hash or the stat cache, and returns their index entries.
func (t *Tree) copyFiles(ctx context.Context, dst string) ([]indexEntry, error) {
	files := t.entry.Files
	if err := makeDirs(dst, files); err != nil {
		return nil, err
	}
	// Files are dated a second before the index is written, so git never
	// sees them as "racily clean" and re-hashes them on the first status.
	stamp := time.Now().Add(-time.Second)
	stats := readStatSnapshot(t.dir)
	out := make([]indexEntry, len(files))
	err := parallel(len(files), func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, err := copyOne(t.Files, dst, files[i], stamp, stats)
		out[i] = e
		return err
	})
	return out, err
}

// makeDirs creates every folder the file list needs, one depth level at a
// time so that folders of the same level are created in parallel.
func makeDirs(dst string, files []fileEntry) error {
	dirs := map[string]bool{}
	var levels [][]string
	for _, f := range files {
		for d := path.Dir(f.Path); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			depth := strings.Count(d, "/")
			for len(levels) <= depth {
				levels = append(levels, nil)
			}
			levels[depth] = append(levels[depth], d)
		}
	}
	for _, level := range levels {
		if err := parallel(len(level), func(i int) error {
			return os.Mkdir(filepath.Join(dst, filepath.FromSlash(level[i])), 0o755)
		}); err != nil {
			return err
		}
	}
	return nil
}

// parallel runs fn(0..n-1) on copyWorkers goroutines and returns the first
// error; after an error the remaining calls are skipped.
func parallel(n int, fn func(i int) error) error {
	var (
		next     atomic.Int64
		failed   atomic.Bool
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range min(copyWorkers(), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					errOnce.Do(func() { firstErr = err })
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// copyOne copies one file, symlink or submodule folder and stats the result.
// A regular file the stat cache vouches for is copied without being read
// here; any other is checked against its blob hash.
func copyOne(srcRoot, dstRoot string, f fileEntry, stamp time.Time, stats *statSnapshot) (indexEntry, error) {
	rel := filepath.FromSlash(f.Path)
	src, dst := filepath.Join(srcRoot, rel), filepath.Join(dstRoot, rel)
	want, err := parseHash(f.Hash)
	if err != nil {
		return indexEntry{}, corruptf("%s: %v", f.Path, err)
	}
	e := indexEntry{path: f.Path, mode: f.indexMode(), hash: want}
	switch {
	case f.isGitlink():
		return e, os.Mkdir(dst, 0o755)
	case f.isSymlink():
		target, err := os.Readlink(src)
		if err != nil {
			return e, corruptf("%s: %v", f.Path, err)
		}
		if got := objectHash("blob", []byte(target)); got != want {
			return e, corruptf("symlink %s points at %q (blob %x), the tree has blob %s", f.Path, target, got, f.Hash)
		}
		if err := os.Symlink(target, dst); err != nil {
			return e, err
		}
	default:
		perm := os.FileMode(0o644)
		if f.isExec() {
			perm = 0o755
		}
		return e, copyRegular(src, dst, f, want, perm, stamp, stats, &e)
	}
	if err := setMtime(dst, stamp); err != nil {
		return e, err
	}
	return e, statInto(dst, &e)
}

// hashedFiles counts the cached files Materialize read and hashed (tests
// check that the stat cache spares unchanged ones).
var hashedFiles atomic.Int64

// copyRegular copies the cached regular file src to the new file dst:
// in the kernel when the stat cache says src is as it was written, else
// through memory, checking its blob hash.
func copyRegular(src, dst string, f fileEntry, want [20]byte, perm os.FileMode, stamp time.Time, stats *statSnapshot, e *indexEntry) error {
	in, err := unix.Open(src, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return corruptf("%s: %v", f.Path, &os.PathError{Op: "open", Path: src, Err: err})
	}
	defer unix.Close(in)
	var st unix.Stat_t
	if err := unix.Fstat(in, &st); err != nil {
		return corruptf("%s: %v", f.Path, err)
	}
	fill := func(out int) error { return copyRange(in, out, f.Size) }
	if st.Size != f.Size || !stats.unchanged(f.Path, statOfUnix(&st)) {
		hashedFiles.Add(1)
		data, err := readExact(in, f.Size)
		if err != nil {
			return corruptf("%s: %v", f.Path, err)
		}
		if got := objectHash("blob", data); got != want {
			return corruptf("file %s has content hash %x, the tree has blob %s", f.Path, got, f.Hash)
		}
		fill = func(out int) error { return writeAll(out, data) }
	}
	written, err := newStamped(dst, perm, stamp, fill)
	if err != nil {
		return err
	}
	fillStatUnix(&written, e)
	return nil
}

// copyRange copies size bytes from in to out (both at offset 0).
func copyRange(in, out int, size int64) error {
	for done := int64(0); done < size; {
		n, err := unix.CopyFileRange(in, nil, out, nil, int(min(size-done, 1<<30)), 0)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EXDEV || err == unix.ENOSYS || err == unix.EOPNOTSUPP || err == unix.EINVAL:
			return copyByReading(in, out, size-done)
		case err != nil:
			return err
		case n == 0:
			return fmt.Errorf("the source ended after %d of %d bytes", done, size)
		}
		done += int64(n)
	}
	return nil
}

// fdReader reads a raw descriptor (which an os.File would close when
// collected).
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(r), p)
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

// copyByReading is copyRange where the kernel cannot copy between the two
// files, from the current offsets.
func copyByReading(in, out int, size int64) error {
	buf := make([]byte, min(size, 1<<20))
	for size > 0 {
		n, err := fdReader(in).Read(buf[:min(int64(len(buf)), size)])
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		if err != nil {
			return err
		}
		if err := writeAll(out, buf[:n]); err != nil {
			return err
		}
		size -= int64(n)
	}
	return nil
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

// readExact reads a descriptor that must hold exactly size bytes.
func readExact(fd int, size int64) ([]byte, error) {
	buf := make([]byte, size+1)
	n, err := io.ReadFull(fdReader(fd), buf)
	if int64(n) != size || (err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !(size == 0 && errors.Is(err, io.EOF))) {
		return nil, fmt.Errorf("size %d differs from the recorded %d bytes", n, size)
	}
	return buf[:size], nil
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
	dir := packDir(t.GitDir)
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
		src := filepath.Join(packDir(t.GitDir), t.entry.Pack+ext)
		dst := filepath.Join(packDir(gitDir), t.entry.Pack+ext)
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

// copyWorkersOverride is set by benchmarks to compare parallelism levels.
var copyWorkersOverride int

// copyWorkers is how many files are copied at once: file creation waits on
// the file system more than on the CPU, so a few more than the CPUs.
func copyWorkers() int {
	if copyWorkersOverride > 0 {
		return copyWorkersOverride
	}
	return min(max(2*runtime.GOMAXPROCS(0), 4), 16)
}
