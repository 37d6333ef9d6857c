package patchset

import (
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/epp-build/epp-build/internal/gitformat"
)

// indexIsHead is half of the clean check inspectLocal makes (the other
// half is scanWorkTree's): whether the index's root tree (trees[""]) is
// HEAD's. When either half is unsure the caller asks the full (slower)
// status for the names; go-git's status reads every directory and tree
// object, which was most of a re-apply's time.
//
// trees are the index's folder hashes (indexTrees); nil means unknown.
func indexIsHead(repo *git.Repository, trees map[string]plumbing.Hash) bool {
	if trees == nil {
		return false
	}
	head, err := repo.Head()
	if err != nil {
		return false
	}
	c, err := repo.CommitObject(head.Hash())
	return err == nil && trees[""] == c.TreeHash
}

// indexWritten is when dir's git index was last written.
func indexWritten(dir string) (time.Time, error) {
	fi, err := os.Stat(filepath.Join(dir, ".git", "index"))
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}

// normalStage is the stage of an entry without a conflict. (go-git's
// index.Merged says 1, but an entry read from an index file has 0, as git
// writes it.)
const normalStage index.Stage = 0

// indexTrees hashes the tree of every folder the index holds ("" is the
// root), in memory (nothing is stored). It is false when an entry is in
// conflict. A re-apply computes it once: the clean check compares the root
// with HEAD's tree, and the in-memory base tree starts from the folders.
func indexTrees(idx *index.Index) (map[string]plumbing.Hash, bool) {
	files := map[string][]object.TreeEntry{}
	subdirs := map[string][]string{}
	known := map[string]bool{"": true}
	for _, e := range idx.Entries {
		if e.Stage != normalStage {
			return nil, false
		}
		dir := parentDir(e.Name)
		files[dir] = append(files[dir], object.TreeEntry{Name: path.Base(e.Name), Mode: e.Mode, Hash: e.Hash})
		for d := dir; !known[d]; d = parentDir(d) {
			known[d] = true
			subdirs[parentDir(d)] = append(subdirs[parentDir(d)], d)
		}
	}
	trees := make(map[string]plumbing.Hash, len(known))
	var encode func(dir string) plumbing.Hash
	encode = func(dir string) plumbing.Hash {
		entries := files[dir]
		for _, d := range subdirs[dir] {
			entries = append(entries, object.TreeEntry{Name: path.Base(d), Mode: filemode.Dir, Hash: encode(d)})
		}
		sortTreeEntries(entries)
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
