package gitstore

import (
	"bufio"
	"compress/zlib"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"runtime"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// streamAbove is the size from which an object of the store is streamed
// into the pack on the writing goroutine rather than encoded whole in
// memory on a worker, so a large one is never held twice.
const streamAbove = 1 << 20

// packWindow is how many encoded entries may wait to be written: enough
// to keep the workers busy, few enough that a store's whole content is
// never held twice.
const packWindow = 256

// packWriter writes one pack, building its index as it goes.
type packWriter struct {
	buf     *bufio.Writer
	sum     hash.Hash
	offset  uint64
	idx     *idxfile.Writer
	z       *zlib.Writer
	trailer plumbing.Hash
}

// entry is one object of the store: encoded by a worker (done closes
// when it is), or streamed by the writer when done is nil.
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
	_, err := p.buf.Write(p.trailer[:]) // after the sum is taken: not part of it
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
