package source

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// FuzzReceivePack feeds receivePack what a hostile server could send. It
// must never panic; a pack it takes is kept byte for byte with an index
// of every object, each blob in the store under the id of its content; a
// pack it refuses leaves nothing in the pack folder.
func FuzzReceivePack(f *testing.F) {
	f.Add(handPackBytes(11, "hello world"))
	f.Add(handPackBytes(5, "hello world"))
	f.Add([]byte("PACK\x00\x00\x00\x02\xff\xff\xff\xff"))
	// Packs git makes, with offset and ref deltas and a thin one, so that
	// mutations reach delta resolution.
	r := deltaRepo(f)
	thin := thinPack(f, r)
	for _, refDeltas := range []bool{false, true} {
		pack, _ := repack(f, r, refDeltas)
		f.Add(pack)
	}
	f.Add(thin)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		pool, err := newBlobWriter(filepath.Join(dir, "blobs"), time.Now(), nil)
		if err != nil {
			t.Fatal(err)
		}
		packDir := filepath.Join(dir, "pack")
		if err := os.Mkdir(packDir, 0o755); err != nil {
			t.Fatal(err)
		}
		name, err := receivePack(context.Background(), bytes.NewReader(data), packDir, pool)
		ranges, _, cerr := pool.close()
		if cerr != nil {
			t.Fatal(cerr)
		}
		entries, rerr := os.ReadDir(packDir)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if len(entries) != 0 {
				t.Fatalf("refused (%v) but left %d files", err, len(entries))
			}
			return
		}
		kept, rerr := os.ReadFile(filepath.Join(packDir, name+".pack"))
		if rerr != nil || !bytes.Equal(kept, data) {
			t.Fatalf("the pack is not kept as received (%v)", rerr)
		}
		idxData, rerr := os.ReadFile(filepath.Join(packDir, name+".idx"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		idx := idxfile.NewMemoryIndex()
		if err := idxfile.NewDecoder(bytes.NewReader(idxData)).Decode(idx); err != nil {
			t.Fatalf("the index does not decode: %v", err)
		}
		store, rerr := os.ReadFile(filepath.Join(dir, "blobs"))
		if rerr != nil {
			t.Fatal(rerr)
		}
		for id, r := range ranges {
			if got := plumbing.ComputeHash(plumbing.BlobObject, store[r.off:r.off+r.size]); got != id {
				t.Fatalf("blob %s holds content hashing to %s", id, got)
			}
			if ok, _ := idx.Contains(id); !ok {
				t.Fatalf("blob %s is not in the index", id)
			}
		}
	})
}
