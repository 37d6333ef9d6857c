// Package bundled writes the recipes embedded in the binary out to a folder
// the recipe, apply and build stages read like any patches/ folder. The
// folder is named by the SHA-256 of the embedded content, so two binaries
// with different series never share one; the copy is checked against that
// content on every use, because the cache is writable by anything that
// runs as the user (or restored by CI from another branch).
package bundled

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	eppbuild "github.com/epp-build/epp-build"
)

// Root is the name of the embedded tree's top folder.
const Root = "patches"

// Digest is the SHA-256 over every embedded file's path (relative to
// patches/) and content, in path order: the identity of the series this
// binary carries.
func Digest() (string, error) { return digest(eppbuild.Patches, Root) }

// FolderDigest is Digest for a recipes folder on disk, so a build's report
// names the series it used by the same measure whatever its origin.
func FolderDigest(dir string) (string, error) {
	sum, err := digest(os.DirFS(dir), ".")
	if err != nil {
		return "", fmt.Errorf("recipes %s: %w", dir, err)
	}
	return sum, nil
}

func digest(fsys fs.FS, root string) (string, error) {
	var files []string
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return "", err
		}
		rel := p
		if root != "." {
			rel = p[len(root)+1:]
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path.Clean(rel), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Copy is the embedded series written out under the cache folder.
type Copy struct {
	Dir    string // the patches folder the stages read
	Digest string // Digest(): the copy holds exactly this content
	// Repaired: a copy was there but its content was not the binary's
	// (edited, planted or from another build); it was written again.
	Repaired bool
}

// Extract writes the embedded patches/ under cacheDir/bundled/<digest>/,
// or checks the copy found there byte for byte and writes it again when it
// differs: a changed copy is never handed to a build.
func Extract(cacheDir string) (Copy, error) { return extract(eppbuild.Patches, cacheDir) }

func extract(fsys fs.FS, cacheDir string) (Copy, error) {
	sum, err := digest(fsys, Root)
	if err != nil {
		return Copy{}, fmt.Errorf("embedded recipes: %w", err)
	}
	final := filepath.Join(cacheDir, "bundled", sum[:32])
	c := Copy{Dir: filepath.Join(final, Root), Digest: sum}
	if _, err := os.Stat(final); err == nil {
		if intact(c) {
			return c, nil
		}
		c.Repaired = true
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return Copy{}, fmt.Errorf("embedded recipes: %w", err)
	}
	// Written beside the final folder and renamed into place, so a reader
	// never sees half a series; a concurrent writer's identical copy wins.
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".tmp-")
	if err != nil {
		return Copy{}, fmt.Errorf("embedded recipes: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := copyOut(fsys, filepath.Join(tmp, Root)); err != nil {
		return Copy{}, fmt.Errorf("embedded recipes: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, final); err == nil {
		return c, nil
	}
	if intact(c) {
		return c, nil // another process wrote the same series first
	}
	// What is there is no copy of ours (unfinished or changed): moved
	// aside in one step, then replaced, so no reader sees it half gone.
	old, err := os.MkdirTemp(filepath.Dir(final), ".old-")
	if err != nil {
		return Copy{}, fmt.Errorf("embedded recipes: %w", err)
	}
	defer os.RemoveAll(old)
	if err := os.Rename(final, filepath.Join(old, "copy")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Copy{}, fmt.Errorf("embedded recipes: replace the cached copy: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil && !intact(c) {
		return Copy{}, fmt.Errorf("embedded recipes: replace the cached copy: %w", err)
	}
	return c, nil
}

// intact: the copy holds exactly the embedded content, nothing more.
func intact(c Copy) bool {
	got, err := digest(os.DirFS(c.Dir), ".")
	return err == nil && got == c.Digest
}

func copyOut(fsys fs.FS, dst string) error {
	return fs.WalkDir(fsys, Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(Root, filepath.FromSlash(p))
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
