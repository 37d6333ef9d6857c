package gitstore

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/gitformat"
)

// NormalStage is the stage of an entry without a conflict. (go-git's
// index.Merged says 1, but an entry read from an index file has 0, as git
// writes it.)
const NormalStage index.Stage = 0

// IndexTrees hashes the tree of every folder the index holds ("" is the
// root), in memory (nothing is stored). It is false when an entry is in
// conflict. A re-apply computes it once: the clean check compares the root
// with HEAD's tree, and the in-memory base tree starts from the folders.
func IndexTrees(idx *index.Index) (map[string]plumbing.Hash, bool) {
	files := map[string][]object.TreeEntry{}
	subdirs := map[string][]string{}
	known := map[string]bool{"": true}
	for _, e := range idx.Entries {
		if e.Stage != NormalStage {
			return nil, false
		}
		dir := ParentDir(e.Name)
		files[dir] = append(files[dir], object.TreeEntry{Name: path.Base(e.Name), Mode: e.Mode, Hash: e.Hash})
		for d := dir; !known[d]; d = ParentDir(d) {
			known[d] = true
			subdirs[ParentDir(d)] = append(subdirs[ParentDir(d)], d)
		}
	}
	trees := make(map[string]plumbing.Hash, len(known))
	var encode func(dir string) plumbing.Hash
	encode = func(dir string) plumbing.Hash {
		entries := files[dir]
		for _, d := range subdirs[dir] {
			entries = append(entries, object.TreeEntry{Name: path.Base(d), Mode: filemode.Dir, Hash: encode(d)})
		}
		SortTreeEntries(entries)
		trees[dir] = treeHash(entries)
		return trees[dir]
	}
	encode("")
	return trees, true
}

// treeHash is the id of the tree object with the sorted entries. The ids
// are only compared with the repository's own (is the index HEAD's
// tree?), so the faster plain SHA-1 of gitformat does.
func treeHash(entries []object.TreeEntry) plumbing.Hash {
	var body []byte
	for _, e := range entries {
		body = gitformat.AppendTreeEntry(body, uint32(e.Mode), e.Name, e.Hash)
	}
	return gitformat.ObjectID("tree", body)
}

// UpdateIndex rewrites the git index entries of the work tree dir for
// paths: each takes the mode and blob entry says (absent: the path is
// dropped) and the stat data of the file as written, so `git status`
// sees a clean tree without re-hashing it.
//
// idx is the index as it is on disk, when the caller has read it already
// (nil: read here); it is changed.
func UpdateIndex(dir string, idx *index.Index, paths []string, entry func(p string) (filemode.FileMode, plumbing.Hash, bool)) error {
	idxPath := filepath.Join(dir, ".git", "index")
	if idx == nil {
		var err error
		if idx, err = gitformat.ReadIndex(idxPath); err != nil {
			return fmt.Errorf("read git index: %w", err)
		}
	}
	changed := map[string]bool{}
	for _, p := range paths {
		changed[p] = true
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if !changed[e.Name] {
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	for _, p := range paths {
		mode, hash, ok := entry(p)
		if !ok {
			continue
		}
		e, err := statEntry(dir, p, mode, hash)
		if err != nil {
			return err
		}
		idx.Entries = append(idx.Entries, e)
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	idx.Cache = nil // the cache-tree extension would be stale
	var buf bytes.Buffer
	if err := gitformat.EncodeIndex(&buf, idx); err != nil {
		return fmt.Errorf("write git index: %w", err)
	}
	if err := atomicfile.Write(idxPath, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write git index: %w", err)
	}
	return nil
}

func statEntry(dir, p string, mode filemode.FileMode, hash plumbing.Hash) (*index.Entry, error) {
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", p, err)
	}
	e := &index.Entry{Name: p, Hash: hash, Mode: mode, Size: uint32(fi.Size()), ModifiedAt: fi.ModTime()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.CreatedAt = changeTime(st)
		e.Dev, e.Inode, e.UID, e.GID = uint32(st.Dev), uint32(st.Ino), st.Uid, st.Gid
	}
	return e, nil
}
