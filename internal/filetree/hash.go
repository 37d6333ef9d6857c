package filetree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// HashOptions say which folders of a tree hold no input and in which order
// its files are hashed.
type HashOptions struct {
	// Skip names folders below the root that are not entered.
	Skip []string
	// PathOrder hashes the files in byte order of their whole paths instead
	// of walk order. The two differ where a name sorts before "/" ("a-b.go"
	// and "a.go" against "a/x.go"); a cache whose keys were made in path
	// order keeps it, so its existing entries stay valid.
	PathOrder bool
}

// Hash fingerprints the regular files and symlinks under root: path, size,
// exec bit and content of each file, path and target of each link. Nothing
// else about a file (times, owner, other permission bits) counts, so equal
// hashes mean a build reads the same input and its cached output can serve.
func Hash(root string, opt HashOptions) (string, error) {
	type file struct {
		path, rel string
		info      fs.FileInfo
	}
	var files []file
	err := walk(root, opt.Skip, func(path, rel string, info fs.FileInfo) error {
		if !info.IsDir() {
			files = append(files, file{path, filepath.ToSlash(rel), info})
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if opt.PathOrder {
		sort.SliceStable(files, func(i, j int) bool { return files[i].path < files[j].path })
	}
	h := sha256.New()
	for _, f := range files {
		if err := hashOne(h, f.path, f.rel, f.info); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashOne(h hash.Hash, path, rel string, info fs.FileInfo) error {
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "L %q %q\n", rel, target)
		return nil
	}
	fmt.Fprintf(h, "F %q %d %t\n", rel, info.Size(), info.Mode()&0o111 != 0)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, f)
	return err
}
