package source

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/epp-build/epp-build/internal/gitstore"
)

// buildFromObjects fills an entry folder from a commit held in s: the
// checked-out files, a pack with exactly the commit, its trees and blobs,
// and the bare repository around it. It completes m (base commit, tree,
// time, file list, pack).
func buildFromObjects(ctx context.Context, tmp string, s storer.EncodedObjectStorer, commit plumbing.Hash, m *entryMeta) error {
	pool, err := newEntryBlobs(tmp, nil)
	if err != nil {
		return err
	}
	c, w, err := snapshot(ctx, tmp, s, commit, pool)
	if err != nil {
		return err
	}
	gitDir := filepath.Join(tmp, gitDirName)
	pack, err := gitstore.WritePack(gitDir, s, w.objects, nil)
	if err != nil {
		return err
	}
	// The pack never carries parents, so any parent makes the commit shallow.
	return finishEntry(gitDir, c, w, pack, len(c.ParentHashes) > 0, m)
}

// buildAroundPack fills an entry folder whose git dir already holds the
// commit in pack (a fetch wrote it there): the checked-out files and the
// bare repository around the pack. pool is the entry's blob store, which
// may hold some blobs already (see packreceive.go).
func buildAroundPack(ctx context.Context, tmp string, s storer.EncodedObjectStorer, commit plumbing.Hash, pack string, m *entryMeta, pool *blobWriter) error {
	gitDir := filepath.Join(tmp, gitDirName)
	c, w, err := snapshot(ctx, tmp, s, commit, pool)
	if err != nil {
		return err
	}
	shallow := false
	for _, p := range c.ParentHashes {
		if s.HasEncodedObject(p) != nil {
			shallow = true
		}
	}
	return finishEntry(gitDir, c, w, pack, shallow, m)
}

// newEntryBlobs starts filling tmp's blob store; with open, its writers
// decode blobs themselves.
func newEntryBlobs(tmp string, open openStore) (*blobWriter, error) {
	return newBlobWriter(filepath.Join(tmp, blobsName), time.Now().Add(-time.Second), open)
}

// packReaders opens, for each blob writer, a store of its own over the
// packs in gitDir: the pack is on disk, so blobs are decoded in parallel.
func packReaders(gitDir string) openStore {
	return func() (storer.EncodedObjectStorer, func(), error) {
		ws := filesystem.NewStorageWithOptions(osfs.New(gitDir), gitcache.NewObjectLRU(8*gitcache.MiByte), filesystem.Options{KeepDescriptors: true})
		return ws, func() { ws.Close() }, nil
	}
}

// snapshot reads the commit and stores the blobs of its tree that pool
// does not hold yet; it closes pool, whatever happens.
func snapshot(ctx context.Context, tmp string, s storer.EncodedObjectStorer, commit plumbing.Hash, pool *blobWriter) (*object.Commit, *snapshotWriter, error) {
	c, err := object.GetCommit(s, commit)
	if err != nil {
		pool.close()
		return nil, nil, fmt.Errorf("read commit %s: %w", commit, err)
	}
	root, err := c.Tree()
	if err != nil {
		pool.close()
		return nil, nil, fmt.Errorf("read tree of commit %s: %w", commit, err)
	}
	w := &snapshotWriter{ctx: ctx, s: s, seen: map[plumbing.Hash]bool{}, pool: pool}
	w.add(commit)
	w.add(root.Hash)
	err = w.walk(root, "")
	ranges, stat, perr := w.pool.close()
	if err == nil {
		err = perr
	}
	if err != nil {
		return nil, nil, err
	}
	for i, e := range w.entries {
		if r, ok := ranges[plumbing.NewHash(e.Hash)]; ok {
			w.entries[i].Offset, w.entries[i].Size = r.off, r.size
		}
	}
	if err := writeStatSnapshot(tmp, stat); err != nil {
		return nil, nil, err
	}
	return c, w, nil
}

// finishEntry completes m and writes the bare repository around pack.
func finishEntry(gitDir string, c *object.Commit, w *snapshotWriter, pack string, shallow bool, m *entryMeta) error {
	m.BaseCommit = c.Hash.String()
	m.Tree = c.TreeHash.String()
	m.Time = c.Committer.When
	m.Shallow = shallow
	m.Pack = pack
	m.Files = w.entries
	return writeBareRepo(gitDir, m)
}

type snapshotWriter struct {
	ctx     context.Context
	s       storer.EncodedObjectStorer
	seen    map[plumbing.Hash]bool
	objects []plumbing.Hash
	entries []fileEntry
	// pool stores the blobs (see blobwriter.go).
	pool *blobWriter
}

func (w *snapshotWriter) add(h plumbing.Hash) {
	if !w.seen[h] {
		w.seen[h] = true
		w.objects = append(w.objects, h)
	}
}

// walk lists the tree's files under prefix, depth first in tree order,
// and stores each blob the first time it appears.
func (w *snapshotWriter) walk(t *object.Tree, prefix string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	for _, e := range t.Entries {
		if err := checkEntryName(e.Name); err != nil {
			return fmt.Errorf("upstream tree %s: entry %q in %q: %w", t.Hash, e.Name, prefix, err)
		}
		rel := path.Join(prefix, e.Name)
		switch e.Mode {
		case filemode.Dir:
			sub, err := object.GetTree(w.s, e.Hash)
			if err != nil {
				return fmt.Errorf("read tree %s (%s): %w", e.Hash, rel, err)
			}
			w.add(e.Hash)
			if err := w.walk(sub, rel); err != nil {
				return err
			}
		case filemode.Submodule:
			// A submodule is an empty folder in a fresh checkout.
			w.entries = append(w.entries, fileEntry{Path: rel, Mode: uint32(e.Mode), Hash: e.Hash.String()})
		default:
			if !w.seen[e.Hash] {
				if !w.pool.holds(e.Hash) {
					if err := w.storeBlob(e.Hash, rel); err != nil {
						return fmt.Errorf("write %s: %w", rel, err)
					}
				}
				w.add(e.Hash)
			}
			w.entries = append(w.entries, fileEntry{Path: rel, Mode: uint32(e.Mode), Hash: e.Hash.String()})
		}
	}
	return nil
}

// storeBlob hands the blob to the writers: by hash when they decode, else
// decoded here (streamed here when too large to hold in memory).
func (w *snapshotWriter) storeBlob(h plumbing.Hash, rel string) error {
	if w.pool.decodes {
		return w.pool.decode(rel, h)
	}
	blob, err := object.GetBlob(w.s, h)
	if err != nil {
		return fmt.Errorf("read blob %s: %w", h, err)
	}
	r, err := blob.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	if blob.Size > inlineBlobSize {
		got, err := w.pool.stream(r, blob.Size)
		if err == nil {
			w.pool.record(h, got)
		}
		return err
	}
	data := make([]byte, blob.Size)
	if _, err := io.ReadFull(r, data); err != nil {
		return err
	}
	return w.pool.write(rel, h, data)
}

// checkEntryName refuses tree entry names that would escape the folder or
// touch git's own metadata when checked out.
func checkEntryName(name string) error {
	switch {
	case name == "", name == ".", name == "..":
		return fmt.Errorf("invalid name")
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("name contains a slash or NUL")
	case strings.EqualFold(name, ".git"):
		return fmt.Errorf("a .git entry would overwrite repository metadata")
	}
	return nil
}
