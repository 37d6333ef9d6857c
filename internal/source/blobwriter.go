package source

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"golang.org/x/sys/unix"
)

// inlineBlobSize is the largest blob handed to the writers in memory;
// larger ones are streamed by the caller, so at most a few megabytes wait.
const inlineBlobSize = 1 << 20

// blobWriter creates files on a few goroutines while its caller walks the
// trees: creating a thousand files is most of a checkout's time, and
// decoding their blobs the rest. A job carries either the content, decoded
// by the caller, or the blob's hash, which the worker decodes from its own
// object store (when the writer was given a way to open one: go-git's
// stores are not safe for concurrent use). Each file is dated stamp and its
// stat data and size kept for the stat cache and the file list.
type blobWriter struct {
	jobs  chan blobJob
	wg    sync.WaitGroup
	stamp time.Time
	// decodes is true when workers decode blobs themselves.
	decodes bool

	mu    sync.Mutex
	err   error
	stats map[string]fileStat
	sizes map[string]int64
}

// fileWritten, when set, is called after each file the writers create
// (tests stop a fill half way with it).
var fileWritten func(rel string)

type blobJob struct {
	rel, full string
	data      []byte
	hash      plumbing.Hash // when data is nil
	perm      os.FileMode
}

// openStore opens an object store of its own for one worker and returns
// how to close it.
type openStore func() (storer.EncodedObjectStorer, func(), error)

// newBlobWriter starts the workers; with open, they decode blobs too.
func newBlobWriter(stamp time.Time, open openStore) *blobWriter {
	n := copyWorkers()
	w := &blobWriter{jobs: make(chan blobJob, 2*n), stamp: stamp, decodes: open != nil,
		stats: map[string]fileStat{}, sizes: map[string]int64{}}
	for range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			var store storer.EncodedObjectStorer
			if open != nil {
				s, closeStore, err := open()
				if err != nil {
					w.fail(err)
				} else {
					store = s
					defer closeStore()
				}
			}
			for j := range w.jobs {
				if w.failed() != nil {
					continue // drain
				}
				st, size, err := w.writeJob(store, j)
				if fileWritten != nil {
					fileWritten(j.rel)
				}
				if err != nil {
					w.fail(fmt.Errorf("write %s: %w", j.rel, err))
					continue
				}
				w.record(j.rel, st, size)
			}
		}()
	}
	return w
}

// writeJob creates the job's file, decoding its blob first when needed.
func (w *blobWriter) writeJob(store storer.EncodedObjectStorer, j blobJob) (fileStat, int64, error) {
	if j.data != nil || j.hash.IsZero() {
		st, err := createStamped(j.full, j.data, j.perm, w.stamp)
		return statOfUnix(&st), int64(len(j.data)), err
	}
	blob, err := object.GetBlob(store, j.hash)
	if err != nil {
		return fileStat{}, 0, fmt.Errorf("read blob %s: %w", j.hash, err)
	}
	r, err := blob.Reader()
	if err != nil {
		return fileStat{}, 0, err
	}
	defer r.Close()
	if blob.Size > inlineBlobSize {
		st, err := streamStamped(j.full, r, j.perm, w.stamp)
		return st, blob.Size, err
	}
	data := make([]byte, blob.Size)
	if _, err := io.ReadFull(r, data); err != nil {
		return fileStat{}, 0, err
	}
	st, err := createStamped(j.full, data, j.perm, w.stamp)
	return statOfUnix(&st), blob.Size, err
}

// decode queues a file whose blob a worker decodes.
func (w *blobWriter) decode(rel, full string, hash plumbing.Hash, perm os.FileMode) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.jobs <- blobJob{rel: rel, full: full, hash: hash, perm: perm}
	return nil
}

// write queues a file; it returns the first error any write had so far.
func (w *blobWriter) write(rel, full string, data []byte, perm os.FileMode) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.jobs <- blobJob{rel: rel, full: full, data: data, perm: perm}
	return nil
}

// record keeps the stat data and size of a file written (also by the
// caller).
func (w *blobWriter) record(rel string, st fileStat, size int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stats[rel] = st
	w.sizes[rel] = size
}

func (w *blobWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *blobWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// close waits for the queued files and returns their stat data and sizes.
func (w *blobWriter) close() (map[string]fileStat, map[string]int64, error) {
	close(w.jobs)
	w.wg.Wait()
	return w.stats, w.sizes, w.err
}

// streamStamped writes a new file from r, dates it and returns its stat
// data: for blobs too large to hold in memory.
func streamStamped(name string, r io.Reader, perm os.FileMode, stamp time.Time) (fileStat, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fileStat{}, err
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = setMtimeFd(f, stamp)
	}
	var st fileStat
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil {
			st, _ = statOf(fi)
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return st, err
}

// createStamped writes a new file on a raw descriptor, dates it and
// returns its stat data.
func createStamped(name string, data []byte, perm os.FileMode, stamp time.Time) (unix.Stat_t, error) {
	return newStamped(name, perm, stamp, func(fd int) error { return writeAll(fd, data) })
}

// newStamped creates the file name on a raw descriptor (an os.File costs
// poller registration and blocking-mode calls, a dozen system calls a
// file), lets fill write its content, dates it and returns its stat data.
func newStamped(name string, perm os.FileMode, stamp time.Time, fill func(fd int) error) (st unix.Stat_t, err error) {
	fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, uint32(perm))
	if err != nil {
		return st, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer func() {
		if cerr := unix.Close(fd); err == nil && cerr != nil {
			err = &os.PathError{Op: "close", Path: name, Err: cerr}
		}
	}()
	if err := fill(fd); err != nil {
		return st, &os.PathError{Op: "write", Path: name, Err: err}
	}
	if err := futimens(fd, stamp); err != nil {
		return st, &os.PathError{Op: "futimens", Path: name, Err: err}
	}
	if err := unix.Fstat(fd, &st); err != nil {
		return st, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	return st, nil
}
