package source

import (
	"context"
	"errors"
	"fmt"
	"io"
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

	"github.com/epp-build/epp-build/internal/gitpath"
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
// commit in pack (a fetch wrote it there, after tip, the object asked
// for): the checked-out files and the bare repository around the pack.
// pool is the entry's blob store, which may hold some blobs already (see
// packreceive.go). Objects the commit does not reference are not kept
// (see reachable.go).
func buildAroundPack(ctx context.Context, tmp string, s storer.EncodedObjectStorer, tip, commit plumbing.Hash, pack string, m *entryMeta, pool *blobWriter) error {
	gitDir := filepath.Join(tmp, gitDirName)
	c, w, err := snapshot(ctx, tmp, s, commit, pool)
	if err != nil {
		return err
	}
	if pack, err = keepReachable(tmp, s, tip, pack, w); err != nil {
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
	lim, err := gitLimitsFromEnv()
	if err != nil {
		pool.close()
		return nil, nil, err
	}
	w := &snapshotWriter{ctx: ctx, s: s, seen: map[plumbing.Hash]bool{}, pool: pool, maxDepth: lim.treeDepth}
	w.add(commit)
	w.add(root.Hash)
	err = w.walk(root.Hash, nil, 1)
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
	// maxDepth is how deep trees may nest (git's core.maxTreeDepth).
	maxDepth int
}

func (w *snapshotWriter) add(h plumbing.Hash) {
	if !w.seen[h] {
		w.seen[h] = true
		w.objects = append(w.objects, h)
	}
}

// walk lists tree t's files under prefix ("" or a path ending in '/'),
// depth first in tree order, and stores each blob the first time it
// appears. t is depth trees deep. The folders' paths share one growing
// buffer, as git's strbuf: a path string per folder made trees nested
// thousands deep cost memory quadratic in the depth.
func (w *snapshotWriter) walk(t plumbing.Hash, prefix []byte, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if depth > w.maxDepth {
		return &LimitError{Limit: "the tree's depth", Value: int64(depth), Max: int64(w.maxDepth), Unit: "levels", Setting: MaxTreeDepthEnv}
	}
	entries, err := readTreeEntries(w.s, t)
	if err != nil {
		return fmt.Errorf("read tree %s (%q): %w", t, prefix, err)
	}
	for _, e := range entries {
		mode, err := canonMode(e.mode)
		if err == nil {
			err = checkEntryName(e.name, mode)
		}
		if err != nil {
			return fmt.Errorf("upstream tree %s: entry %q in %q: %w", t, e.name, prefix, err)
		}
		switch mode {
		case filemode.Dir:
			w.add(e.hash)
			if err := w.walk(e.hash, append(append(prefix, e.name...), '/'), depth+1); err != nil {
				return err
			}
		case filemode.Submodule:
			// A submodule is an empty folder in a fresh checkout.
			w.entries = append(w.entries, fileEntry{Path: string(prefix) + e.name, Mode: uint32(e.mode), Hash: e.hash.String()})
		default:
			rel := string(prefix) + e.name
			if !w.seen[e.hash] {
				if !w.pool.holds(e.hash) {
					if err := w.storeBlob(e.hash, rel); err != nil {
						return fmt.Errorf("write %s: %w", rel, err)
					}
				}
				w.add(e.hash)
			}
			// The mode as the tree has it: the file list rebuilds the tree.
			w.entries = append(w.entries, fileEntry{Path: rel, Mode: uint32(e.mode), Hash: e.hash.String()})
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
// touch git's own metadata when checked out, under any name git refuses
// (gitpath: git's verify_path, and fsck's rule on a .gitmodules symlink).
func checkEntryName(name string, mode filemode.FileMode) error {
	switch {
	case name == "", name == ".", name == "..":
		return fmt.Errorf("invalid name")
	case strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("name contains a slash or NUL")
	case strings.EqualFold(name, ".git"):
		return fmt.Errorf("a .git entry would overwrite repository metadata")
	}
	// Each component is checked as its tree lists it: the rules that look
	// past a component's end stop at a '/', and only the last component
	// can be a symlink.
	if reason := gitpath.AliasReason(name, mode == filemode.Symlink); reason != "" {
		return errors.New(reason)
	}
	return nil
}

// canonMode is the mode git checks a tree entry out with (canon_mode in
// git's cache.h): a regular file is 100644 or, with the owner's execute
// bit, 100755, whatever other bits an old git wrote (100664 was common).
// The file list keeps the mode as the tree has it, which its tree hashes
// are rebuilt from. Any other mode than git's own is refused, as fsck
// refuses it.
func canonMode(m filemode.FileMode) (filemode.FileMode, error) {
	switch {
	case m&0o170000 == 0o100000:
		if m&0o100 != 0 {
			return filemode.Executable, nil
		}
		return filemode.Regular, nil
	case m == filemode.Dir, m == filemode.Symlink, m == filemode.Submodule:
		return m, nil
	}
	return 0, fmt.Errorf("mode %o is not a file, folder, symlink or submodule mode git writes", uint32(m))
}
