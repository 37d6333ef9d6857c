package source

import (
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// A delta on a blob is applied from the store to the store: go-git's
// PatchDelta wants the base and builds the result in memory, so a chain
// of deltas on large blobs held two of them at once, and the garbage of
// every link, however far under the object limit each stayed. Here memory
// holds only the delta's instructions and a copy buffer.

// deltaHeader reads the base's and the result's sizes at the start of a
// delta (little-endian base-128 numbers) and returns the instructions
// after them.
func deltaHeader(delta []byte) (baseSize, resultSize int64, ops []byte, err error) {
	var sizes [2]int64
	for i := range sizes {
		var n uint64
		for shift := uint(0); ; shift += 7 {
			if len(delta) == 0 || shift > 56 {
				return 0, 0, nil, fmt.Errorf("%w: a delta without a valid header", packfile.ErrMalformedPackFile)
			}
			c := delta[0]
			delta = delta[1:]
			n |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				break
			}
		}
		if n > 1<<62 {
			return 0, 0, nil, fmt.Errorf("%w: a delta declaring %d bytes", packfile.ErrMalformedPackFile, n)
		}
		sizes[i] = int64(n)
	}
	return sizes[0], sizes[1], delta, nil
}

// patchBlob applies the instructions ops to the blob base, writing a
// result of size bytes into a range of its own in the store, as git's
// patch_delta does: every copy must lie within the base, nothing may be
// written past size, and exactly size bytes must be.
func (d *packDecoder) patchBlob(base *receivedObject, ops []byte, size int64) (*receivedObject, blobRange, error) {
	r := d.pool.reserve(size)
	id := plumbing.NewHasher(plumbing.BlobObject, size)
	out := io.MultiWriter(io.NewOffsetWriter(d.pool.store, r.off), id)
	if d.copyBuf == nil {
		d.copyBuf = make([]byte, 64<<10)
	}
	invalid := func(what string) (*receivedObject, blobRange, error) {
		return nil, blobRange{}, fmt.Errorf("%w: %s", packfile.ErrInvalidDelta, what)
	}
	left := size
	for len(ops) > 0 {
		cmd := ops[0]
		ops = ops[1:]
		switch {
		case cmd&0x80 != 0:
			var off, n int64
			for i, shift := range []uint{0, 8, 16, 24, 0, 8, 16} {
				if cmd&(1<<i) == 0 {
					continue
				}
				if len(ops) == 0 {
					return invalid("a copy cut short")
				}
				if i < 4 {
					off |= int64(ops[0]) << shift
				} else {
					n |= int64(ops[0]) << shift
				}
				ops = ops[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > base.blob.size || n > left {
				return invalid("a copy outside the base or past the result")
			}
			src := io.NewSectionReader(d.pool.store, base.blob.off+off, n)
			if _, err := io.CopyBuffer(out, src, d.copyBuf); err != nil {
				return nil, blobRange{}, err
			}
			left -= n
		case cmd != 0:
			n := int64(cmd)
			if n > int64(len(ops)) || n > left {
				return invalid("an insert past the instructions or the result")
			}
			if _, err := out.Write(ops[:n]); err != nil {
				return nil, blobRange{}, err
			}
			ops = ops[n:]
			left -= n
		default:
			return invalid("instruction 0 is reserved")
		}
	}
	if left != 0 {
		return invalid(fmt.Sprintf("a result of %d bytes declared %d", size-left, size))
	}
	return &receivedObject{typ: plumbing.BlobObject, hash: id.Sum()}, r, nil
}
