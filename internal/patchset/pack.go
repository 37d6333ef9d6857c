package patchset

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/storage/memory"
)

// writePack stores every object of fresh as one packfile (and its index)
// in the repository at gitDir and returns its name ("pack-<hash>"; "" when
// there was nothing to store). Objects are stored without compression
// (zlib stored blocks): compressing was most of a long series' apply
// time, the pack is written once, and git recompresses when it repacks.
//
// Spilled blobs are streamed from their files into the pack, so a large
// one is never in memory whole.
func writePack(gitDir string, fresh *memory.Storage, spilled []spilledBlob) (string, error) {
	spilled = uniqueSpills(fresh, spilled)
	if len(fresh.Objects) == 0 && len(spilled) == 0 {
		return "", nil
	}
	hashes := make([]plumbing.Hash, 0, len(fresh.Objects))
	for h := range fresh.Objects {
		hashes = append(hashes, h)
	}
	sort.Slice(hashes, func(i, j int) bool { return bytes.Compare(hashes[i][:], hashes[j][:]) < 0 })
	entries, err := compressAll(fresh, hashes)
	if err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}

	dir := filepath.Join(gitDir, "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	defer os.Remove(tmp.Name())
	sum := sha1.New()
	w := io.MultiWriter(tmp, sum)
	header := []byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0}
	n := uint32(len(entries) + len(spilled))
	header[8], header[9], header[10], header[11] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	if _, err := w.Write(header); err != nil {
		tmp.Close()
		return "", err
	}
	idx := new(idxfile.Writer)
	offset := uint64(len(header))
	for i, e := range entries {
		idx.Add(hashes[i], offset, crc32.ChecksumIEEE(e))
		if _, err := w.Write(e); err != nil {
			tmp.Close()
			return "", err
		}
		offset += uint64(len(e))
	}
	for _, b := range spilled {
		crc := crc32.NewIEEE()
		written := &countingWriter{w: io.MultiWriter(w, crc)}
		if err := streamEntry(written, b); err != nil {
			tmp.Close()
			return "", fmt.Errorf("write pack: %w", err)
		}
		idx.Add(b.hash, offset, crc.Sum32())
		offset += uint64(written.n)
	}
	var trailer plumbing.Hash
	copy(trailer[:], sum.Sum(nil))
	if _, err := tmp.Write(trailer[:]); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := idx.OnFooter(trailer); err != nil {
		return "", err
	}
	index, err := idx.Index()
	if err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	base := filepath.Join(dir, "pack-"+hex.EncodeToString(trailer[:]))
	idxFile, err := os.Create(base + ".idx.tmp")
	if err != nil {
		return "", err
	}
	if _, err := idxfile.NewEncoder(idxFile).Encode(index); err != nil {
		idxFile.Close()
		return "", fmt.Errorf("write pack index: %w", err)
	}
	if err := idxFile.Close(); err != nil {
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

// compressAll returns each object as a pack entry: type-and-size header
// followed by its zlib stream.
func compressAll(fresh *memory.Storage, hashes []plumbing.Hash) ([][]byte, error) {
	entries := make([][]byte, len(hashes))
	errs := make([]error, len(hashes))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One writer per worker: a new zlib writer allocates about
			// a megabyte, which dominates for small objects.
			z, _ := zlib.NewWriterLevel(io.Discard, zlib.NoCompression)
			for i := range next {
				entries[i], errs[i] = packEntry(z, fresh.Objects[hashes[i]])
			}
		}()
	}
	for i := range hashes {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return entries, nil
}

func packEntry(z *zlib.Writer, obj plumbing.EncodedObject) ([]byte, error) {
	var b bytes.Buffer
	b.Write(entryHeader(obj.Type(), obj.Size()))
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	z.Reset(&b)
	if _, err := io.Copy(z, r); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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

// streamEntry writes a spilled blob as a pack entry, reading its file in
// pieces.
func streamEntry(w io.Writer, b spilledBlob) error {
	f, err := os.Open(b.path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := w.Write(entryHeader(plumbing.BlobObject, b.size)); err != nil {
		return err
	}
	z, _ := zlib.NewWriterLevel(w, zlib.NoCompression)
	if _, err := io.Copy(z, f); err != nil {
		return err
	}
	return z.Close()
}

// uniqueSpills drops spilled blobs already in fresh or spilled twice: a
// pack must hold each object once.
func uniqueSpills(fresh *memory.Storage, spilled []spilledBlob) []spilledBlob {
	seen := map[plumbing.Hash]bool{}
	var out []spilledBlob
	for _, b := range spilled {
		if _, inFresh := fresh.Objects[b.hash]; inFresh || seen[b.hash] {
			continue
		}
		seen[b.hash] = true
		out = append(out, b)
	}
	return out
}
