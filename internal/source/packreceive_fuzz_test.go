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

	hg "github.com/epp-build/epp-build/internal/testutil/hostilegit"
)

// FuzzReceivePack feeds receivePack what a hostile server could send,
// under limits low enough that a mutation declaring large sizes is cheap.
// It must never panic nor go over the limits; a pack it takes is kept byte
// for byte with an index of every object, each blob in the store under
// the id of its content; a pack it refuses leaves nothing in the pack
// folder.
func FuzzReceivePack(f *testing.F) {
	f.Add(handPackBytes(11, "hello world"))
	f.Add(handPackBytes(5, "hello world"))
	f.Add([]byte("PACK\x00\x00\x00\x02\xff\xff\xff\xff"))
	// The bombs and corrupt packs, small: a delta copying past the
	// object limit, a commit declaring more, a count past the limit,
	// commits and trees declaring more than they hold, reserved type 5.
	commit := hg.CommitOf(hg.ID("tree", nil))
	f.Add(deltaBomb(2 << 20))
	f.Add(hg.Pack(hg.Object{Type: hg.Commit, Size: 2 << 20, Data: commit}))
	f.Add(hg.PackDeclaring(1<<32-1, hg.Honest(hg.Blob, []byte("x")), hg.Honest(hg.Blob, []byte("y"))))
	f.Add(hg.Pack(hg.Object{Type: hg.Commit, Size: int64(len(commit)) + 10, Data: commit}))
	f.Add(hg.Pack(hg.Object{Type: hg.Tree, Size: 40, Data: hg.TreeOf(hg.Entry{Mode: "100644", Name: "f"})}))
	f.Add(hg.Pack(hg.Honest(hg.Reserved, []byte("x"))))
	lim := defaultGitLimits()
	lim.objectBytes, lim.packBytes, lim.objects = 1<<20, 4<<20, 1<<16
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
		name, err := receivePack(context.Background(), bytes.NewReader(data), packDir, pool, lim)
		ranges, _, cerr := pool.close()
		if cerr != nil {
			t.Fatal(cerr)
		}
		if st, serr := os.Stat(filepath.Join(dir, "blobs")); serr != nil || st.Size() > lim.packBytes+lim.objectBytes {
			t.Fatalf("the blob store went past the limits (%v)", serr)
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
