package source

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// inlineBlobSize is the largest blob handed to the writers in memory;
// larger ones are streamed by the caller, so at most a few megabytes wait.
const inlineBlobSize = 1 << 20

// blobWriter creates files from contents held in memory on a few
// goroutines while its caller decodes the next blobs: objects are read
// one at a time, and creating a thousand files is most of a checkout's
// time. Each file is dated stamp and its stat data kept for the stat cache.
type blobWriter struct {
	jobs  chan blobJob
	wg    sync.WaitGroup
	stamp time.Time

	mu    sync.Mutex
	err   error
	stats map[string]fileStat
}

// fileWritten, when set, is called after each file the writers create
// (tests stop a fill half way with it).
var fileWritten func(rel string)

type blobJob struct {
	rel, full string
	data      []byte
	perm      uint32
}

func newBlobWriter(stamp time.Time) *blobWriter {
	n := copyWorkers()
	w := &blobWriter{jobs: make(chan blobJob, 2*n), stamp: stamp, stats: map[string]fileStat{}}
	for range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for j := range w.jobs {
				if w.failed() != nil {
					continue // drain
				}
				st, err := createStamped(j.full, j.data, j.perm, w.stamp)
				if fileWritten != nil {
					fileWritten(j.rel)
				}
				if err != nil {
					w.fail(err)
					continue
				}
				w.record(j.rel, st)
			}
		}()
	}
	return w
}

// write queues a file; it returns the first error any write had so far.
func (w *blobWriter) write(rel, full string, data []byte, perm os.FileMode) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.jobs <- blobJob{rel: rel, full: full, data: data, perm: uint32(perm)}
	return nil
}

// record keeps the stat data of a file written (also by the caller).
func (w *blobWriter) record(rel string, st fileStat) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stats[rel] = st
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

// close waits for the queued files and returns their stat data.
func (w *blobWriter) close() (map[string]fileStat, error) {
	close(w.jobs)
	w.wg.Wait()
	return w.stats, w.err
}

// createStamped writes a new file on a raw descriptor, dates it and
// returns its stat data.
func createStamped(name string, data []byte, perm uint32, stamp time.Time) (st fileStat, err error) {
	fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, perm)
	if err != nil {
		return st, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer func() {
		if cerr := unix.Close(fd); err == nil && cerr != nil {
			err = &os.PathError{Op: "close", Path: name, Err: cerr}
		}
	}()
	for rest := data; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return st, &os.PathError{Op: "write", Path: name, Err: err}
		}
		rest = rest[n:]
	}
	if err := futimens(fd, stamp); err != nil {
		return st, &os.PathError{Op: "futimens", Path: name, Err: err}
	}
	var raw unix.Stat_t
	if err := unix.Fstat(fd, &raw); err != nil {
		return st, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	return statOfUnix(&raw), nil
}
