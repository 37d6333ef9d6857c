package gitstore

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// PackDir is where a git dir keeps its packs.
func PackDir(gitDir string) string { return filepath.Join(gitDir, "objects", "pack") }

// FileBlob is a blob whose content lies in a file: too large to hold in
// memory, it is streamed into the pack.
type FileBlob struct {
	Hash plumbing.Hash
	Path string
	Size int64
}

// streamAbove is the size from which an object of the store is streamed
// into the pack on the writing goroutine rather than encoded whole in
// memory on a worker, so a large one is never held twice.
const streamAbove = 1 << 20

// packWindow is how many encoded entries may wait to be written: enough
// to keep the workers busy, few enough that a store's whole content is
// never held twice.
const packWindow = 256

// WritePack stores the objects of s named by hashes, in that order, and
// then the file blobs as one pack, with its index, in gitDir. It returns
// the pack's name ("pack-<hash>"; "" when there is nothing to store).
//
// Objects are stored without deltas or compression (zlib stored blocks):
// compressing was most of a long series' apply time, and parsing the pack
// again to index it was most of writing a cache entry; here the index is
// built while the pack is written. hashes must not repeat; a file blob
// already among them, or listed twice, is stored once.
//
// s is only read on the calling goroutine (a store need not be safe for
// concurrent use); objects it holds in memory are encoded on a few
// workers.
func WritePack(gitDir string, s storer.EncodedObjectStorer, hashes []plumbing.Hash, files []FileBlob) (string, error) {
	files = uniqueFiles(hashes, files)
	if len(hashes) == 0 && len(files) == 0 {
		return "", nil
	}
	dir := PackDir(gitDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	defer os.Remove(tmp.Name())
	p := &packWriter{sum: sha1.New(), idx: new(idxfile.Writer)}
	p.buf = bufio.NewWriterSize(io.MultiWriter(tmp, p.sum), 1<<16)
	p.z, _ = zlib.NewWriterLevel(io.Discard, zlib.NoCompression)
	err = p.write(s, hashes, files)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	base := filepath.Join(dir, "pack-"+hex.EncodeToString(p.trailer[:]))
	if err := writeIndex(p.idx, p.trailer, base+".idx.tmp"); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	// Read-only, as git leaves them: a pack never changes.
	if err := os.Chmod(tmp.Name(), 0o444); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), base+".pack"); err != nil {
		return "", err
	}
	if err := os.Rename(base+".idx.tmp", base+".idx"); err != nil {
		return "", err
	}
	return filepath.Base(base), nil
}

// RemovePack deletes the pack name ("pack-<hash>") and its index from
// gitDir; a pack already gone is not an error.
func RemovePack(gitDir, name string) error {
	for _, ext := range []string{".idx", ".pack"} {
		if err := os.Remove(filepath.Join(PackDir(gitDir), name+ext)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

type packWriter struct {
	buf     *bufio.Writer
	sum     hash.Hash
	offset  uint64
	idx     *idxfile.Writer
	z       *zlib.Writer
	trailer plumbing.Hash
}

// entry is one object encoded by a worker, or to be streamed by the
// writer when obj is set.
type entry struct {
	hash plumbing.Hash
	obj  plumbing.EncodedObject
	data []byte
	crc  uint32
	err  error
	done chan struct{}
}

func (p *packWriter) write(s storer.EncodedObjectStorer, hashes []plumbing.Hash, files []FileBlob) error {
	header := []byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0}
	n := uint32(len(hashes) + len(files))
	header[8], header[9], header[10], header[11] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	if _, err := p.buf.Write(header); err != nil {
		return err
	}
	p.offset = uint64(len(header))

	work := make(chan *entry)
	defer close(work)
	for range runtime.GOMAXPROCS(0) {
		go encodeEntries(work)
	}
	queue := make([]*entry, 0, packWindow)
	// On an error the entries still queued are dropped: the workers
	// finish them and stop when work closes.
	flush := func(keep int) error {
		for len(queue) > keep {
			e := queue[0]
			queue = queue[1:]
			if err := p.put(e); err != nil {
				return err
			}
		}
		return nil
	}
	for _, h := range hashes {
		obj, err := s.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return fmt.Errorf("object %s: %w", h, err)
		}
		e := &entry{hash: h, obj: obj}
		if _, inMemory := obj.(*plumbing.MemoryObject); inMemory && obj.Size() <= streamAbove {
			e.done = make(chan struct{})
			work <- e
		}
		queue = append(queue, e)
		if err := flush(packWindow - 1); err != nil {
			return err
		}
	}
	if err := flush(0); err != nil {
		return err
	}
	for _, f := range files {
		if err := p.stream(f.Hash, plumbing.BlobObject, f.Size, func() (io.ReadCloser, error) { return os.Open(f.Path) }); err != nil {
			return err
		}
	}
	if err := p.buf.Flush(); err != nil {
		return err
	}
	copy(p.trailer[:], p.sum.Sum(nil))
	_, err := p.buf.Write(p.trailer[:]) // the checksum does not cover itself
	if err == nil {
		err = p.buf.Flush()
	}
	return err
}

// put writes e: encoded by a worker, or streamed from its object here.
func (p *packWriter) put(e *entry) error {
	if e.done == nil {
		return p.stream(e.hash, e.obj.Type(), e.obj.Size(), func() (io.ReadCloser, error) { return e.obj.Reader() })
	}
	<-e.done
	if e.err != nil {
		return fmt.Errorf("object %s: %w", e.hash, e.err)
	}
	p.idx.Add(e.hash, p.offset, e.crc)
	if _, err := p.buf.Write(e.data); err != nil {
		return err
	}
	p.offset += uint64(len(e.data))
	return nil
}

// stream writes an object as a pack entry, reading it in pieces.
func (p *packWriter) stream(h plumbing.Hash, typ plumbing.ObjectType, size int64, open func() (io.ReadCloser, error)) error {
	r, err := open()
	if err != nil {
		return err
	}
	defer r.Close()
	crc := crc32.NewIEEE()
	w := &countingWriter{w: io.MultiWriter(p.buf, crc)}
	if _, err := w.Write(entryHeader(typ, size)); err != nil {
		return err
	}
	p.z.Reset(w)
	if _, err := io.Copy(p.z, r); err != nil {
		return fmt.Errorf("object %s: %w", h, err)
	}
	if err := p.z.Close(); err != nil {
		return err
	}
	p.idx.Add(h, p.offset, crc.Sum32())
	p.offset += uint64(w.n)
	return nil
}

// encodeEntries encodes the entries sent on work until it closes.
func encodeEntries(work <-chan *entry) {
	// One writer per worker: a new zlib writer allocates about a
	// megabyte, which dominates for small objects.
	z, _ := zlib.NewWriterLevel(io.Discard, zlib.NoCompression)
	for e := range work {
		e.data, e.err = encode(z, e.obj)
		e.crc = crc32.ChecksumIEEE(e.data)
		close(e.done)
	}
}

// encode returns obj as a pack entry: type-and-size header followed by
// its zlib stream.
func encode(z *zlib.Writer, obj plumbing.EncodedObject) ([]byte, error) {
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// The header, the content, and zlib's framing: 5 bytes per stored
	// block of at most 64 KiB, 6 around the stream.
	n := obj.Size()
	b := make([]byte, 0, 10+n+5*(n/65535+2)+6)
	buf := &appendWriter{b: append(b, entryHeader(obj.Type(), obj.Size())...)}
	z.Reset(buf)
	if _, err := io.Copy(z, r); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.b, nil
}

// entryHeader is a pack entry's type and size.
func entryHeader(typ plumbing.ObjectType, n int64) []byte {
	size := uint64(n)
	var b []byte
	c := byte(typ)<<4 | byte(size&0x0f)
	size >>= 4
	for size > 0 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(b, c)
}

// writeIndex writes the pack index the entries were added to, for the
// pack whose checksum is trailer.
func writeIndex(w *idxfile.Writer, trailer plumbing.Hash, name string) error {
	if err := w.OnFooter(trailer); err != nil {
		return err
	}
	index, err := w.Index()
	if err != nil {
		return err
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	_, err = idxfile.NewEncoder(bw).Encode(index)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o444)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// uniqueFiles drops file blobs already among hashes or listed twice: a
// pack must hold each object once.
func uniqueFiles(hashes []plumbing.Hash, files []FileBlob) []FileBlob {
	if len(files) == 0 {
		return nil
	}
	seen := make(map[plumbing.Hash]bool, len(hashes)+len(files))
	for _, h := range hashes {
		seen[h] = true
	}
	var out []FileBlob
	for _, f := range files {
		if !seen[f.Hash] {
			seen[f.Hash] = true
			out = append(out, f)
		}
	}
	return out
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

// appendWriter appends to a slice sized beforehand, so an entry is
// written into one allocation.
type appendWriter struct{ b []byte }

func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
