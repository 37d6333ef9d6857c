// Package bundled writes the recipes embedded in the binary out to a folder
// the recipe, apply and build stages read like any patches/ folder. The
// folder is named by the SHA-256 of the embedded content, so two binaries
// with different series never share one, and one binary writes it once.
package bundled

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	eppbuild "github.com/epp-build/epp-build"
)

// Root is the name of the embedded tree's top folder.
const Root = "patches"

// Digest is the SHA-256 over every embedded file's path and content, in
// path order: the identity of the series this binary carries.
func Digest() (string, error) { return digest(eppbuild.Patches) }

func digest(fsys fs.FS) (string, error) {
	var files []string
	err := fs.WalkDir(fsys, Root, func(p string, d fs.DirEntry, err error) error {
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
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Extract writes the embedded patches/ under cacheDir/bundled/<digest>/
// (once; a later call finds it) and returns that patches folder.
func Extract(cacheDir string) (string, error) { return extract(eppbuild.Patches, cacheDir) }

func extract(fsys fs.FS, cacheDir string) (string, error) {
	sum, err := digest(fsys)
	if err != nil {
		return "", fmt.Errorf("embedded recipes: %w", err)
	}
	final := filepath.Join(cacheDir, "bundled", sum[:32])
	dst := filepath.Join(final, Root)
	if _, err := os.Stat(filepath.Join(final, ".complete")); err == nil {
		return dst, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", fmt.Errorf("embedded recipes: %w", err)
	}
	// Written beside the final folder and renamed into place, so a reader
	// never sees half a series; a concurrent writer's identical copy wins.
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".tmp-")
	if err != nil {
		return "", fmt.Errorf("embedded recipes: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := copyOut(fsys, filepath.Join(tmp, Root)); err != nil {
		return "", fmt.Errorf("embedded recipes: write %s: %w", tmp, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(sum+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("embedded recipes: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Stat(filepath.Join(final, ".complete")); serr == nil {
			return dst, nil // another process wrote the same series first
		}
		// A folder without the completion mark is no copy of ours:
		// replace it.
		if rerr := os.RemoveAll(final); rerr != nil {
			return "", fmt.Errorf("embedded recipes: %w", rerr)
		}
		if err := os.Rename(tmp, final); err != nil {
			return "", fmt.Errorf("embedded recipes: %w", err)
		}
	}
	return dst, nil
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
