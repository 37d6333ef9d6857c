package source

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/epp-build/epp-build/internal/gitstore"
)

// receivePack keeps the pack read from r in packDir as it arrives, indexes
// it, and stores each blob in pool as soon as it is decoded: decoding the
// blobs is most of the work of filling a cache entry, and here it runs
// while the server is still sending, instead of after the last byte. It
// returns the pack's name (pack-<checksum>), installed as
// gitstore.InstallPack installs a pack; a pack it refuses leaves nothing
// in packDir.
//
// Each object is decoded once and hashed with go-git's collision-detecting
// SHA-1, as git index-pack hashes what it receives. Deltas are resolved
// against objects earlier in the same pack (the request never asks for a
// thin pack): a blob base is read back from the store, any other base
// (trees, commits) is kept in memory.
func receivePack(ctx context.Context, r io.Reader, packDir string, pool *blobWriter, lim gitLimits) (string, error) {
	tmp, err := gitstore.CreateTempPack(packDir)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	received := &budgetReader{r: r, max: lim.packBytes}
	r = received
	kept := &countingFileWriter{w: bufio.NewWriterSize(tmp, 256<<10)}
	scanner := packfile.NewScanner(io.TeeReader(r, kept))
	// A breach of the byte budget may reach here wrapped, or as the
	// scanner's own complaint about a cut stream: the budget's error is
	// the one that says what happened.
	fail := func(err error) (string, error) {
		if received.breach != nil {
			return "", received.breach
		}
		return "", err
	}
	_, count, err := scanner.Header()
	if err != nil {
		return fail(fmt.Errorf("pack header: %w", err))
	}
	if count > lim.objects {
		return "", &LimitError{Limit: "the pack's object count", Value: int64(count), Max: int64(lim.objects), Unit: "objects", Setting: MaxPackObjectsEnv}
	}
	// The count is the server's word: it sizes nothing larger than a
	// GAIE-sized tree needs (a hostile count once ran the index writer's
	// preallocation out of memory).
	hint := min(count, 1<<14)
	var index idxfile.Writer
	if err := index.OnHeader(hint); err != nil {
		return "", err
	}
	d := &packDecoder{pool: pool, lim: lim, byOffset: make(map[int64]*receivedObject, hint), byHash: make(map[plumbing.Hash]*receivedObject, hint)}
	for i := uint32(0); i < count; i++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		header, err := scanner.NextObjectHeader()
		if err != nil {
			return fail(fmt.Errorf("pack object %d of %d: %w", i+1, count, err))
		}
		o, crc, err := d.next(scanner, header)
		var limit *LimitError
		if errors.As(err, &limit) {
			return "", limit
		}
		if err != nil {
			return fail(fmt.Errorf("pack object %d of %d at offset %d: %w", i+1, count, header.Offset, err))
		}
		index.Add(o.hash, uint64(header.Offset), crc)
	}
	checksum, err := scanner.Checksum()
	if err != nil {
		return fail(fmt.Errorf("pack trailer: %w", err))
	}
	if err := kept.w.Flush(); err != nil {
		return "", err
	}
	if err := endsWithChecksum(tmp, kept.n, checksum, r); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return gitstore.InstallPack(packDir, tmp.Name(), &index, checksum)
}

// budgetReader fails the read that takes more than max bytes from r, with
// the *LimitError it keeps in breach.
type budgetReader struct {
	r      io.Reader
	n, max int64
	breach *LimitError
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.breach != nil {
		return 0, b.breach
	}
	if rest := b.max + 1 - b.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		b.breach = &LimitError{Limit: "the pack's size", Value: b.n, Max: b.max, Unit: "bytes", Setting: MaxPackEnv}
		return n, b.breach
	}
	return n, err
}

// endsWithChecksum checks that nothing followed the pack's checksum: the
// scanner reads ahead, so trailing bytes may already be in the file (of
// size n) as well as still unread in r.
func endsWithChecksum(f *os.File, n int64, checksum plumbing.Hash, r io.Reader) error {
	rest, err := io.Copy(io.Discard, r)
	if err != nil {
		return err
	}
	var trailer plumbing.Hash
	if n >= int64(len(trailer)) {
		if _, err := f.ReadAt(trailer[:], n-int64(len(trailer))); err != nil {
			return err
		}
	}
	if rest > 0 || trailer != checksum {
		return fmt.Errorf("%w: data follows the pack's checksum", packfile.ErrMalformedPackFile)
	}
	return nil
}

// countingFileWriter counts the bytes kept, to find data after the pack.
type countingFileWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingFileWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// receivedObject is one decoded object of the pack: blobs by where the
// store holds them, other objects by their content.
type receivedObject struct {
	typ  plumbing.ObjectType
	hash plumbing.Hash
	blob blobRange
	data []byte
}

type packDecoder struct {
	pool     *blobWriter
	lim      gitLimits
	buf      bytes.Buffer
	byOffset map[int64]*receivedObject
	byHash   map[plumbing.Hash]*receivedObject
	// inflated is the bytes the pack's objects hold so far, a delta's
	// instructions and result both counted.
	inflated int64
	// copyBuf carries a blob delta's copies (deltastream.go).
	copyBuf []byte
	// held is the bytes of the commits, trees and tags kept in memory.
	held int64
}

// next decodes the object whose header the scanner just read and stores
// it. A whole blob is inflated straight into its range of the store,
// however large; only deltas and the (small) other objects are held in
// memory. Every size the header declares is checked against the limits
// before anything is allocated for it, and the inflated data must have
// exactly that size, as git's index-pack insists.
func (d *packDecoder) next(scanner *packfile.Scanner, h *packfile.ObjectHeader) (*receivedObject, uint32, error) {
	switch h.Type {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject, plumbing.OFSDeltaObject, plumbing.REFDeltaObject:
	default:
		return nil, 0, fmt.Errorf("%w: object type %d is reserved", packfile.ErrMalformedPackFile, h.Type)
	}
	if err := d.admit(h.Length); err != nil {
		return nil, 0, err
	}
	if h.Type == plumbing.BlobObject {
		r := d.pool.reserve(h.Length)
		id := plumbing.NewHasher(plumbing.BlobObject, h.Length)
		n, crc, err := scanner.NextObject(io.MultiWriter(io.NewOffsetWriter(d.pool.store, r.off), id))
		if err == nil && n != h.Length {
			err = fmt.Errorf("%w: a blob of %d bytes declared %d", packfile.ErrMalformedPackFile, n, h.Length)
		}
		if err != nil {
			return nil, 0, err
		}
		o := &receivedObject{typ: plumbing.BlobObject, hash: id.Sum()}
		d.keep(h, o, r)
		return o, crc, nil
	}
	d.buf.Reset()
	n, crc, err := scanner.NextObject(&d.buf)
	if err == nil && n != h.Length {
		err = fmt.Errorf("%w: a %s of %d bytes declared %d", packfile.ErrMalformedPackFile, h.Type, n, h.Length)
	}
	if err != nil {
		return nil, 0, err
	}
	o, err := d.add(h)
	return o, crc, err
}

// admit counts an object of size bytes (a delta's by its result) against
// the limits on one object and on the whole pack.
func (d *packDecoder) admit(size int64) error {
	if size > d.lim.objectBytes {
		return &LimitError{Limit: "an object's size", Value: size, Max: d.lim.objectBytes, Unit: "bytes", Setting: MaxObjectEnv}
	}
	if d.inflated += size; d.inflated > d.lim.packBytes {
		return &LimitError{Limit: "the pack's inflated size", Value: d.inflated, Max: d.lim.packBytes, Unit: "bytes", Setting: MaxPackEnv}
	}
	return nil
}

// add decodes the object whose inflated data is in d.buf (a delta's
// instructions, for a delta) and stores it.
func (d *packDecoder) add(h *packfile.ObjectHeader) (*receivedObject, error) {
	typ, content := h.Type, d.buf.Bytes()
	if typ.IsDelta() {
		base := d.byHash[h.Reference]
		if typ == plumbing.OFSDeltaObject {
			base = d.byOffset[h.OffsetReference]
		}
		if base == nil {
			return nil, fmt.Errorf("%w: a delta whose base is not earlier in the pack", packfile.ErrMalformedPackFile)
		}
		// The result's declared size is checked before anything is
		// allocated for it: a few bytes of copy instructions can declare
		// gigabytes.
		baseSize, size, ops, err := deltaHeader(content)
		if err != nil {
			return nil, err
		}
		if err := d.admit(size); err != nil {
			return nil, err
		}
		if base.typ == plumbing.BlobObject {
			if baseSize != base.blob.size {
				return nil, fmt.Errorf("%w: a delta on %d bytes for a base of %d", packfile.ErrInvalidDelta, baseSize, base.blob.size)
			}
			o, r, err := d.patchBlob(base, ops, size)
			if err != nil {
				return nil, err
			}
			d.keep(h, o, r)
			return o, nil
		}
		if content, err = packfile.PatchDelta(base.data, content); err != nil {
			return nil, err
		}
		typ = base.typ
	}
	o := &receivedObject{typ: typ, hash: plumbing.ComputeHash(typ, content)}
	if typ != plumbing.BlobObject {
		// Kept in memory as the bases of later deltas: together they may
		// hold no more than one object, or a pack of large trees would
		// hold its whole inflated size in memory (GAIE's hold under a MB).
		if d.held += int64(len(content)); d.held > d.lim.objectBytes {
			return nil, &LimitError{Limit: "the pack's commits, trees and tags together", Value: d.held, Max: d.lim.objectBytes, Unit: "bytes", Setting: MaxObjectEnv}
		}
		o.data = bytes.Clone(content)
		d.keep(h, o, blobRange{})
		return o, nil
	}
	r, err := d.pool.put(content)
	if err != nil {
		return nil, fmt.Errorf("write blob %s: %w", o.hash, err)
	}
	d.keep(h, o, r)
	return o, nil
}

// keep records a decoded object, for the deltas based on it, and a blob's
// range in the store.
func (d *packDecoder) keep(h *packfile.ObjectHeader, o *receivedObject, blob blobRange) {
	if o.typ == plumbing.BlobObject {
		o.blob = blob
		d.pool.record(o.hash, blob)
		if fileWritten != nil {
			fileWritten(o.hash.String())
		}
	}
	d.byOffset[h.Offset] = o
	d.byHash[o.hash] = o
}
