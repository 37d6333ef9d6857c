package source

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/epp-build/epp-build/internal/gitstore"
)

// A fetched pack is kept as the server sent it, and its blobs are stored
// as they arrive, before anything says which objects the pinned commit
// references. An honest server sends exactly those (and the tag asked
// for); anything else (a blob of a gigabyte, say) would sit in the cache
// entry and be reused by every later run. keepReachable leaves such an
// entry with only what the commit references: a pack written anew from
// the objects the walk saw, and a blob store of just the files' blobs.

// keepReachable returns pack, or the name of the pack that replaces it
// when pack holds objects that neither the walk w (from the commit) saw
// nor the tag chain from tip leads through. The walk's file list is
// updated to the new blob store.
func keepReachable(tmp string, s storer.EncodedObjectStorer, tip plumbing.Hash, pack string, w *snapshotWriter) (string, error) {
	gitDir := filepath.Join(tmp, gitDirName)
	ids, err := packObjects(gitDir, pack)
	if err != nil {
		return "", err
	}
	tags := tagChain(s, tip)
	extra := 0
	for _, id := range ids {
		if !w.seen[id] && !tags[id] {
			extra++
		}
	}
	if extra == 0 {
		return pack, nil
	}
	kept, err := gitstore.WritePack(gitDir, s, w.objects, nil)
	if err != nil {
		return "", fmt.Errorf("pack without the %d objects commit does not reference: %w", extra, err)
	}
	if err := gitstore.RemovePack(gitDir, pack); err != nil {
		return "", err
	}
	if err := rewriteBlobStore(tmp, w); err != nil {
		return "", fmt.Errorf("blob store without the objects the commit does not reference: %w", err)
	}
	return kept, nil
}

// packObjects lists the ids in pack's index.
func packObjects(gitDir, pack string) ([]plumbing.Hash, error) {
	data, err := os.ReadFile(filepath.Join(gitstore.PackDir(gitDir), pack+".idx"))
	if err != nil {
		return nil, err
	}
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(data)).Decode(idx); err != nil {
		return nil, fmt.Errorf("index of %s: %w", pack, err)
	}
	entries, err := idx.Entries()
	if err != nil {
		return nil, err
	}
	defer entries.Close()
	var ids []plumbing.Hash
	for {
		e, err := entries.Next()
		if err == io.EOF {
			return ids, nil
		}
		if err != nil {
			return nil, err
		}
		ids = append(ids, e.Hash)
	}
}

// tagChain is the annotated tags peel follows from tip.
func tagChain(s storer.EncodedObjectStorer, tip plumbing.Hash) map[plumbing.Hash]bool {
	tags := map[plumbing.Hash]bool{}
	for h := tip; !tags[h]; {
		obj, err := s.EncodedObject(plumbing.TagObject, h)
		if err != nil {
			break
		}
		var tag object.Tag
		if err := tag.Decode(obj); err != nil {
			break
		}
		tags[h] = true
		h = tag.Target
	}
	return tags
}

// rewriteBlobStore copies the blobs the file list uses into a fresh store
// and points the list at it.
func rewriteBlobStore(tmp string, w *snapshotWriter) error {
	store := filepath.Join(tmp, blobsName)
	old := store + ".received"
	if err := os.Rename(store, old); err != nil {
		return err
	}
	defer os.Remove(old)
	from, err := os.Open(old)
	if err != nil {
		return err
	}
	defer from.Close()
	pool, err := newEntryBlobs(tmp, nil)
	if err != nil {
		return err
	}
	copied := map[plumbing.Hash]bool{}
	for _, e := range w.entries {
		h := plumbing.NewHash(e.Hash)
		if !e.hasContent() || copied[h] {
			continue
		}
		copied[h] = true
		r, err := pool.stream(io.NewSectionReader(from, e.Offset, e.Size), e.Size)
		if err != nil {
			pool.close()
			return err
		}
		pool.record(h, r)
	}
	ranges, stat, err := pool.close()
	if err != nil {
		return err
	}
	for i, e := range w.entries {
		if r, ok := ranges[plumbing.NewHash(e.Hash)]; ok {
			w.entries[i].Offset, w.entries[i].Size = r.off, r.size
		}
	}
	return writeStatSnapshot(tmp, stat)
}
