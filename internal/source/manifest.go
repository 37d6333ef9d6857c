package source

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/gitformat"
)

// Git tree entry modes, as numbers (git writes them in octal).
const (
	modeTree       = 0o040000
	modeRegular    = 0o100644
	modeExecutable = 0o100755
	modeSymlink    = 0o120000
	modeGitlink    = 0o160000
)

// fileEntry is one non-tree entry of the snapshot: a file, symlink or
// submodule, with its path relative to the root (slash-separated), its git
// mode as written in the tree, its object hash and, for files and
// symlinks, where its content lies in the entry's blob store.
type fileEntry struct {
	Path   string `json:"p"`
	Mode   uint32 `json:"m"`
	Hash   string `json:"h"`
	Size   int64  `json:"s"`
	Offset int64  `json:"o"`
}

func (f fileEntry) isExec() bool     { return f.Mode&0o111 != 0 && f.Mode&0o170000 == 0o100000 }
func (f fileEntry) isSymlink() bool  { return f.Mode == modeSymlink }
func (f fileEntry) isGitlink() bool  { return f.Mode == modeGitlink }
func (f fileEntry) hasContent() bool { return !f.isGitlink() }

// indexMode is the mode git records in the index: regular files are
// normalised to 644 or 755.
func (f fileEntry) indexMode() uint32 {
	switch {
	case f.isSymlink(), f.isGitlink():
		return f.Mode
	case f.isExec():
		return modeExecutable
	}
	return modeRegular
}

// treeNode is a folder while rebuilding tree objects from the file list.
type treeNode struct {
	files []treeItem
	dirs  map[string]*treeNode
}

type treeItem struct {
	name string
	mode uint32
	hash [20]byte
}

// treeHashes rebuilds every tree object the file list implies and returns
// the root tree's hash and all tree hashes. It is how an entry's file list
// is checked against the commit without reading a single object.
func treeHashes(files []fileEntry) (root [20]byte, all [][20]byte, err error) {
	return buildTrees(files, nil)
}

// buildTrees is treeHashes that also hands every tree object's content to
// store (when not nil), children before parents.
func buildTrees(files []fileEntry, store func(body []byte)) (root [20]byte, all [][20]byte, err error) {
	top := &treeNode{dirs: map[string]*treeNode{}}
	for _, f := range files {
		h, err := parseHash(f.Hash)
		if err != nil {
			return root, nil, fmt.Errorf("file %s: %w", f.Path, err)
		}
		parts := strings.Split(f.Path, "/")
		node := top
		for _, dir := range parts[:len(parts)-1] {
			child := node.dirs[dir]
			if child == nil {
				child = &treeNode{dirs: map[string]*treeNode{}}
				node.dirs[dir] = child
			}
			node = child
		}
		node.files = append(node.files, treeItem{name: parts[len(parts)-1], mode: f.Mode, hash: h})
	}
	root = top.hash(&all, store)
	return root, all, nil
}

// hash serialises the folder as git does and hashes it, children first.
func (n *treeNode) hash(all *[][20]byte, store func([]byte)) [20]byte {
	items := append([]treeItem(nil), n.files...)
	for name, child := range n.dirs {
		items = append(items, treeItem{name: name, mode: modeTree, hash: child.hash(all, store)})
	}
	// Git orders entries by name, comparing a tree's name as if it ended in "/".
	sortKey := func(it treeItem) string {
		if it.mode == modeTree {
			return it.name + "/"
		}
		return it.name
	}
	sort.Slice(items, func(i, j int) bool { return sortKey(items[i]) < sortKey(items[j]) })
	var body []byte
	for _, it := range items {
		body = gitformat.AppendTreeEntry(body, it.mode, it.name, it.hash)
	}
	h := gitformat.ObjectID("tree", body)
	*all = append(*all, h)
	if store != nil {
		store(body)
	}
	return h
}

func parseHash(s string) ([20]byte, error) {
	var h [20]byte
	if len(s) != 40 {
		return h, fmt.Errorf("object id %q is not 40 hex digits", s)
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, fmt.Errorf("object id %q: %w", s, err)
	}
	return h, nil
}
