package patchset

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// spillAbove is the size from which a file's new content is kept on disk
// rather than in memory: a patch with one huge hunk must not hold the
// result, its blob and its pack entry in memory at once.
const spillAbove = 4 << 20

// spillStore keeps large blobs in files inside the repository's .git
// (the same file system as the work tree, so the write-out can move them
// into place) until the series has applied.
type spillStore struct {
	gitDir string
	dir    string
	blobs  []spilledBlob
}

type spilledBlob struct {
	hash plumbing.Hash
	path string
	size int64
}

// write streams c into a new spill file and returns its path and blob id.
func (s *spillStore) write(c content) (string, plumbing.Hash, error) {
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.gitDir, "epp-build-spill-")
		if err != nil {
			return "", plumbing.ZeroHash, err
		}
		s.dir = dir
	}
	f, err := os.CreateTemp(s.dir, "blob-")
	if err != nil {
		return "", plumbing.ZeroHash, err
	}
	size := c.size()
	h := plumbing.NewHasher(plumbing.BlobObject, size)
	n := &countingWriter{w: io.MultiWriter(f, h)}
	bw := bufio.NewWriterSize(n, 1<<16)
	err = c.writeTo(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n.n != size {
		err = fmt.Errorf("wrote %d bytes, expected %d", n.n, size)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", plumbing.ZeroHash, err
	}
	sum := h.Sum()
	s.blobs = append(s.blobs, spilledBlob{hash: sum, path: f.Name(), size: size})
	return f.Name(), sum, nil
}

// remove deletes every spill file that is still there.
func (s *spillStore) remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
