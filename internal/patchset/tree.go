package patchset

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/epp-build/epp-build/internal/gitstore"
)

// tree is the state of the work tree while the series applies: every file
// of the base commit plus the changes so far, held in memory so that a
// failing patch leaves the files on disk untouched. Directory tree hashes
// are cached and only the directories a patch touched are re-encoded.
type tree struct {
	dir   string
	store storer.EncodedObjectStorer
	files map[string]*fileEntry
	// dirs maps a directory ("" is the root) to its child names; a child
	// that is itself a key of dirs is a subdirectory.
	dirs    map[string]map[string]bool
	dirHash map[string]plumbing.Hash
	dirty   map[string]bool
	// touched is every path the series changed, for the final write-out.
	touched map[string]bool
	// spills holds the large blobs kept on disk instead of in store.
	spills *gitstore.BlobFiles
	// base holds the base commit's objects; stale are the paths whose file
	// on disk is not the base commit's (a re-apply in place starts from a
	// tree holding an older series), read from base instead.
	base  storer.EncodedObjectStorer
	stale map[string]bool
}

type fileEntry struct {
	mode filemode.FileMode
	hash plumbing.Hash
	// data is nil while the content is the base commit's (then it is read
	// from disk on demand) or spilled.
	data []byte
	// spill is the file holding a large content, or "".
	spill string
}

// spillAbove is the size from which a file's new content is kept on disk
// rather than in memory: a patch with one huge hunk must not hold the
// result, its blob and its pack entry in memory at once.
const spillAbove = 4 << 20

// loadTree reads the base commit's tree from base; new objects go to out.
func loadTree(dir string, base, out storer.EncodedObjectStorer, commit plumbing.Hash) (*tree, error) {
	c, err := object.GetCommit(base, commit)
	if err != nil {
		return nil, fmt.Errorf("read base commit %s: %w", commit, err)
	}
	root, err := object.GetTree(base, c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("read base tree %s: %w", c.TreeHash, err)
	}
	t := &tree{
		dir: dir, store: out, base: base,
		files:   map[string]*fileEntry{},
		dirs:    map[string]map[string]bool{},
		dirHash: map[string]plumbing.Hash{},
		dirty:   map[string]bool{},
		touched: map[string]bool{},
		spills:  gitstore.NewBlobFiles(filepath.Join(dir, ".git")),
	}
	if err := t.load(base, "", root); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *tree) load(base storer.EncodedObjectStorer, dir string, tr *object.Tree) error {
	t.dirHash[dir] = tr.Hash
	children := map[string]bool{}
	t.dirs[dir] = children
	for _, e := range tr.Entries {
		children[e.Name] = true
		p := path.Join(dir, e.Name)
		if e.Mode == filemode.Dir {
			sub, err := object.GetTree(base, e.Hash)
			if err != nil {
				return fmt.Errorf("read tree %s: %w", p, err)
			}
			if err := t.load(base, p, sub); err != nil {
				return err
			}
			continue
		}
		t.files[p] = &fileEntry{mode: e.Mode, hash: e.Hash}
	}
	return nil
}

func (t *tree) exists(p string) bool { _, ok := t.files[p]; return ok }

// blockingParent returns the first proper parent of p that is a file (a
// symlink, or a regular file standing where p needs a directory).
func (t *tree) blockingParent(p string) string {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if _, ok := t.files[d]; ok {
			return d
		}
	}
	return ""
}

func (t *tree) read(p string) ([]byte, error) {
	e, ok := t.files[p]
	if !ok {
		return nil, os.ErrNotExist
	}
	if e.data != nil {
		return e.data, nil
	}
	if e.spill != "" {
		return os.ReadFile(e.spill)
	}
	if t.stale[p] {
		return t.readBlob(p, e)
	}
	full := filepath.Join(t.dir, filepath.FromSlash(p))
	if e.mode == filemode.Symlink {
		target, err := os.Readlink(full)
		if err != nil {
			return nil, err
		}
		e.data = []byte(target)
		return e.data, nil
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, err
	}
	e.data = data
	return data, nil
}

// readBlob reads p's content from the object store.
func (t *tree) readBlob(p string, e *fileEntry) ([]byte, error) {
	obj, err := t.base.EncodedObject(plumbing.BlobObject, e.hash)
	if err != nil {
		return nil, fmt.Errorf("blob %s of %s: %w", e.hash, p, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("blob %s of %s: %w", e.hash, p, err)
	}
	e.data = data
	return data, nil
}

func (t *tree) mode(p string) filemode.FileMode { return t.files[p].mode }

// set stores data for p and writes its blob.
func (t *tree) set(p string, mode filemode.FileMode, data []byte) error {
	return t.setContent(p, mode, bytesContent(data))
}

// setContent stores c for p and writes its blob: in memory, or streamed
// to a spill file when it is large.
func (t *tree) setContent(p string, mode filemode.FileMode, c content) error {
	e := &fileEntry{mode: mode}
	if c.size() > spillAbove && mode != filemode.Symlink {
		path, h, err := t.spills.Write(c.size(), c.writeTo)
		if err != nil {
			return fmt.Errorf("store %s: %w", p, err)
		}
		e.hash, e.spill = h, path
	} else {
		// Never nil, even when empty: nil data means "read it from disk".
		b := bytes.NewBuffer(make([]byte, 0, c.size()))
		if err := c.writeTo(b); err != nil {
			return fmt.Errorf("store %s: %w", p, err)
		}
		h, err := gitstore.WriteBlob(t.store, b.Bytes())
		if err != nil {
			return fmt.Errorf("store %s: %w", p, err)
		}
		e.hash, e.data = h, b.Bytes()
	}
	t.files[p] = e
	t.touched[p] = true
	for child := p; child != ""; child = gitstore.ParentDir(child) {
		dir := gitstore.ParentDir(child)
		if t.dirs[dir] == nil {
			t.dirs[dir] = map[string]bool{}
		}
		t.dirs[dir][path.Base(child)] = true
	}
	t.markDirty(p)
	return nil
}

// remove deletes p and prunes the directories it leaves empty, as git does.
func (t *tree) remove(p string) {
	delete(t.files, p)
	t.touched[p] = true
	for child := p; ; {
		dir := gitstore.ParentDir(child)
		delete(t.dirs[dir], path.Base(child))
		if dir == "" || len(t.dirs[dir]) > 0 {
			break
		}
		delete(t.dirs, dir)
		delete(t.dirHash, dir)
		delete(t.dirty, dir)
		child = dir
	}
	t.markDirty(p)
}

// markDirty flags every existing ancestor directory of p for re-encoding.
func (t *tree) markDirty(p string) {
	for dir := gitstore.ParentDir(p); ; dir = gitstore.ParentDir(dir) {
		if t.dirs[dir] != nil {
			t.dirty[dir] = true
		}
		if dir == "" {
			return
		}
	}
}

// writeTree encodes the directories changed since the last call and
// returns the root tree hash.
func (t *tree) writeTree() (plumbing.Hash, error) {
	return t.encodeDir("")
}

func (t *tree) encodeDir(dir string) (plumbing.Hash, error) {
	if !t.dirty[dir] {
		if h, ok := t.dirHash[dir]; ok {
			return h, nil
		}
	}
	var entries []object.TreeEntry
	for name := range t.dirs[dir] {
		p := path.Join(dir, name)
		if _, isDir := t.dirs[p]; isDir {
			h, err := t.encodeDir(p)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
			continue
		}
		f := t.files[p]
		entries = append(entries, object.TreeEntry{Name: name, Mode: f.mode, Hash: f.hash})
	}
	h, err := gitstore.WriteTree(t.store, entries)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("store tree %q: %w", dir, err)
	}
	t.dirHash[dir] = h
	delete(t.dirty, dir)
	return h, nil
}
