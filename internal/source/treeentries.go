package source

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeEntry is one entry of a tree object with its mode as written:
// go-git's decoder turns a legacy 100664 into 100644, but the entry's file
// list must rebuild the tree's own bytes to check it against the commit.
type treeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// readTreeEntries reads tree h's entries as written. Entries git would
// not have written (a mode with a leading zero, names out of git's order
// or twice) are refused: the file list could not rebuild the tree.
func readTreeEntries(s storer.EncodedObjectStorer, h plumbing.Hash) ([]treeEntry, error) {
	obj, err := s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var entries []treeEntry
	prev := ""
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || len(data) < nul+1+20 {
			return nil, fmt.Errorf("tree %s is malformed", h)
		}
		modeText := string(data[:sp])
		mode, err := strconv.ParseUint(modeText, 8, 32)
		if err != nil || modeText[0] == '0' {
			return nil, fmt.Errorf("tree %s: mode %q is not one git writes", h, modeText)
		}
		e := treeEntry{name: string(data[sp+1 : nul]), mode: filemode.FileMode(mode)}
		copy(e.hash[:], data[nul+1:nul+21])
		data = data[nul+21:]
		key := e.name
		if e.mode == filemode.Dir {
			key += "/"
		}
		if len(entries) > 0 && key <= prev {
			return nil, fmt.Errorf("tree %s: entry %q is out of git's order or repeated", h, e.name)
		}
		prev = key
		entries = append(entries, e)
	}
	return entries, nil
}
