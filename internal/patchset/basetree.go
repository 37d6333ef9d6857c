package patchset

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/epp-build/epp-build/internal/gitstore"
)

// baseFromIndex builds the in-memory tree of the base commit for a re-apply
// in place without reading the base's whole tree from the object store:
// the index of the clean tree is the old series' last commit, and only
// the paths the old series touched (stale) differ from the base; their
// base entries are looked up along their own directories. Directory
// hashes come from hashing the index's entries in memory (trees, which
// the clean check computed already; nil: computed here), and the
// directories of the stale paths are re-encoded when the first patch is
// committed. t takes trees over.
func baseFromIndex(dir string, base, out storer.EncodedObjectStorer, idx *index.Index, trees map[string]plumbing.Hash, commit plumbing.Hash, stale []string) (*tree, error) {
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
		files:   make(map[string]*fileEntry, len(idx.Entries)),
		dirs:    map[string]map[string]bool{"": {}},
		dirHash: map[string]plumbing.Hash{},
		dirty:   map[string]bool{},
		touched: map[string]bool{},
		stale:   map[string]bool{},
		spills:  gitstore.NewBlobFiles(filepath.Join(dir, ".git")),
	}
	for _, e := range idx.Entries {
		if e.Stage != gitstore.NormalStage {
			return nil, fmt.Errorf("the index holds a conflict at %s", e.Name)
		}
		t.put(e.Name, e.Mode, e.Hash)
	}
	if trees == nil {
		trees, _ = gitstore.IndexTrees(idx) // no conflicts: checked above
	}
	t.dirHash = trees
	// Paths the base lacks go first, so that a file the base has may take
	// the place of a folder the old series made.
	var restore []*object.TreeEntry
	var restorePaths []string
	for _, p := range stale {
		t.stale[p] = true
		e, err := root.FindEntry(p)
		if err != nil && !errors.Is(err, object.ErrEntryNotFound) && !errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, fmt.Errorf("base entry %s: %w", p, err)
		}
		if err != nil || e.Mode == filemode.Dir {
			if t.exists(p) {
				t.remove(p)
			}
			continue
		}
		restore, restorePaths = append(restore, e), append(restorePaths, p)
	}
	for i, e := range restore {
		p := restorePaths[i]
		t.put(p, e.Mode, e.Hash)
		t.markDirty(p)
	}
	t.touched = map[string]bool{}
	return t, nil
}

// put adds the entry p to files and its folders to dirs, without storing
// anything.
func (t *tree) put(p string, mode filemode.FileMode, h plumbing.Hash) {
	t.files[p] = &fileEntry{mode: mode, hash: h}
	for child := p; child != ""; {
		dir := gitstore.ParentDir(child)
		known := t.dirs[dir] != nil
		if !known {
			t.dirs[dir] = map[string]bool{}
		}
		t.dirs[dir][path.Base(child)] = true
		if known {
			return
		}
		child = dir
	}
}
