package gitstore

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
)

// BlobFiles keeps new blobs too large to hold in memory in files inside a
// git dir until WritePack streams them. The git dir is on the work tree's
// file system, so a file can also be moved into the work tree rather than
// copied.
type BlobFiles struct {
	gitDir string
	dir    string
	blobs  []FileBlob
}

// NewBlobFiles keeps its files in gitDir; nothing is created until the
// first Write.
func NewBlobFiles(gitDir string) *BlobFiles { return &BlobFiles{gitDir: gitDir} }

// Write streams a blob of size bytes, which write produces, into a new
// file and returns the file and the blob's id.
func (s *BlobFiles) Write(size int64, write func(io.Writer) error) (string, plumbing.Hash, error) {
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
	h := plumbing.NewHasher(plumbing.BlobObject, size)
	n := &countingWriter{w: io.MultiWriter(f, h)}
	bw := bufio.NewWriterSize(n, 1<<16)
	err = write(bw)
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
	s.blobs = append(s.blobs, FileBlob{Hash: sum, Path: f.Name(), Size: size})
	return f.Name(), sum, nil
}

// Blobs are the blobs written so far, for WritePack.
func (s *BlobFiles) Blobs() []FileBlob { return s.blobs }

// Remove deletes every file that is still there (one moved away is
// already gone).
func (s *BlobFiles) Remove() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
