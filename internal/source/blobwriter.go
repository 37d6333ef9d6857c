package source

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"golang.org/x/sys/unix"
)

// inlineBlobSize is the largest blob handed to the writers in memory;
// larger ones are streamed, so at most a few megabytes wait.
const inlineBlobSize = 1 << 20

// blobWriter fills an entry's blob store (see blobstore.go) on a few
// goroutines while its caller walks the trees: decoding blobs is most of
// the work. A job carries either the content, decoded by the caller, or
// the blob's hash, which the worker decodes from its own object store
// (when the writer was given a way to open one: go-git's stores are not
// safe for concurrent use). Each blob gets its range of the store from an
// atomic counter, so the workers never wait on each other, and is written
// once however many paths hold it.
type blobWriter struct {
	jobs  chan blobJob
	wg    sync.WaitGroup
	store *os.File
	end   atomic.Int64
	stamp time.Time
	// decodes is true when workers decode blobs themselves.
	decodes bool

	mu     sync.Mutex
	err    error
	ranges map[plumbing.Hash]blobRange
}

// blobRange is where one blob's content lies in the store.
type blobRange struct{ off, size int64 }

// fileWritten, when set, is called after each blob stored, by the
// writers or as a pack arrives (tests stop a fill half way with it).
var fileWritten func(rel string)

type blobJob struct {
	rel  string // a path holding the blob, for messages
	hash plumbing.Hash
	data []byte // nil: the worker decodes hash
}

// openStore opens an object store of its own for one worker and returns
// how to close it.
type openStore func() (storer.EncodedObjectStorer, func(), error)

// newBlobWriter creates the store file name and starts the workers; with
// open, they decode blobs too. The store is dated stamp when closed.
func newBlobWriter(name string, stamp time.Time, open openStore) (*blobWriter, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	n := copyWorkers()
	w := &blobWriter{jobs: make(chan blobJob, 2*n), store: f, stamp: stamp, decodes: open != nil,
		ranges: map[plumbing.Hash]blobRange{}}
	for range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			var objects storer.EncodedObjectStorer
			opened := false
			for j := range w.jobs {
				if w.failed() != nil {
					continue // drain
				}
				// Opened at the first job a worker decodes: the pack
				// may still be arriving when the writers start.
				if open != nil && j.data == nil && !opened {
					opened = true
					s, closeStore, err := open()
					if err != nil {
						w.fail(err)
						continue
					}
					objects = s
					defer closeStore()
				}
				r, err := w.writeJob(objects, j)
				if fileWritten != nil {
					fileWritten(j.rel)
				}
				if err != nil {
					w.fail(fmt.Errorf("write %s: %w", j.rel, err))
					continue
				}
				w.record(j.hash, r)
			}
		}()
	}
	return w, nil
}

// writeJob stores the job's blob, decoding it first when needed.
func (w *blobWriter) writeJob(objects storer.EncodedObjectStorer, j blobJob) (blobRange, error) {
	if j.data != nil {
		return w.put(j.data)
	}
	if objects == nil {
		return blobRange{}, fmt.Errorf("blob %s: no object store to decode it from", j.hash)
	}
	blob, err := object.GetBlob(objects, j.hash)
	if err != nil {
		return blobRange{}, fmt.Errorf("read blob %s: %w", j.hash, err)
	}
	rd, err := blob.Reader()
	if err != nil {
		return blobRange{}, err
	}
	defer rd.Close()
	if blob.Size > inlineBlobSize {
		return w.stream(rd, blob.Size)
	}
	data := make([]byte, blob.Size)
	if _, err := io.ReadFull(rd, data); err != nil {
		return blobRange{}, err
	}
	return w.put(data)
}

// reserve hands out the next size bytes of the store.
func (w *blobWriter) reserve(size int64) blobRange {
	return blobRange{off: w.end.Add(size) - size, size: size}
}

// put writes data into a range of its own.
func (w *blobWriter) put(data []byte) (blobRange, error) {
	r := w.reserve(int64(len(data)))
	_, err := w.store.WriteAt(data, r.off)
	return r, err
}

// stream copies a blob too large to hold in memory into a range of its
// own.
func (w *blobWriter) stream(rd io.Reader, size int64) (blobRange, error) {
	r := w.reserve(size)
	n, err := io.Copy(io.NewOffsetWriter(w.store, r.off), io.LimitReader(rd, size))
	if err == nil && n != size {
		err = fmt.Errorf("the blob ended after %d of %d bytes", n, size)
	}
	return r, err
}

// decode queues a blob a worker decodes; rel names a path that holds it.
func (w *blobWriter) decode(rel string, hash plumbing.Hash) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.jobs <- blobJob{rel: rel, hash: hash}
	return nil
}

// write queues a blob the caller decoded; it returns the first error any
// write had so far.
func (w *blobWriter) write(rel string, hash plumbing.Hash, data []byte) error {
	if err := w.failed(); err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	w.jobs <- blobJob{rel: rel, hash: hash, data: data}
	return nil
}

// holds says whether the blob is in the store already.
func (w *blobWriter) holds(hash plumbing.Hash) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.ranges[hash]
	return ok
}

func (w *blobWriter) record(hash plumbing.Hash, r blobRange) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ranges[hash] = r
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

// close waits for the queued blobs, dates the store and returns where each
// blob lies and the store's stat data.
func (w *blobWriter) close() (map[plumbing.Hash]blobRange, fileStat, error) {
	close(w.jobs)
	w.wg.Wait()
	err := w.err
	var st unix.Stat_t
	fd := int(w.store.Fd())
	if err == nil {
		if ferr := futimens(fd, w.stamp); ferr != nil {
			err = &os.PathError{Op: "futimens", Path: w.store.Name(), Err: ferr}
		}
	}
	if err == nil {
		if ferr := unix.Fstat(fd, &st); ferr != nil {
			err = &os.PathError{Op: "stat", Path: w.store.Name(), Err: ferr}
		}
	}
	if cerr := w.store.Close(); err == nil {
		err = cerr
	}
	return w.ranges, statOfUnix(&st), err
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
