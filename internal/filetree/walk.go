// Package filetree reads and copies the source trees one build stage hands
// to the next: a fingerprint of a tree keys the C API and binary caches, and
// a copy gives each build a work folder of its own.
package filetree

import (
	"io/fs"
	"path/filepath"
	"slices"
)

// walk calls visit for root and the folders, regular files and symlinks
// under it, in lexical order (a folder's contents right after the folder).
// Folders below root named in skip are not entered: they hold version
// control data or build output, never an input. Anything else (sockets,
// devices, pipes) is passed over, as no build reads it.
func walk(root string, skip []string, visit func(path, rel string, info fs.FileInfo) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && slices.Contains(skip, d.Name()) {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.IsDir() && !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		return visit(path, rel, info)
	})
}
