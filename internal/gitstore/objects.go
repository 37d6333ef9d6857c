package gitstore

import (
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// WriteBlob stores data in s as a blob.
func WriteBlob(s storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// WriteTree stores the tree of entries in s, sorting them as git does.
func WriteTree(s storer.EncodedObjectStorer, entries []object.TreeEntry) (plumbing.Hash, error) {
	SortTreeEntries(entries)
	obj := s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// WriteCommit stores c in s.
func WriteCommit(s storer.EncodedObjectStorer, c *object.Commit) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// SortTreeEntries orders entries as git does: by name, with directories
// compared as if their name ended in "/".
func SortTreeEntries(entries []object.TreeEntry) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
}

// ParentDir is the folder of a tree path: path.Dir with "" for the root,
// as trees name it.
func ParentDir(p string) string {
	if d := path.Dir(p); d != "." {
		return d
	}
	return ""
}
