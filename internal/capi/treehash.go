package capi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/platform"
)

// skipDirs are never inputs of a crate build: cargo's output and VCS data.
var skipDirs = map[string]bool{"target": true, ".git": true}

// TreeHash hashes every regular file and symlink under dir (path, exec bit
// and content), skipping target/ and .git/, so a rebuild is needed exactly
// when the source changes.
func TreeHash(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if path != dir && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "L %q %q\n", filepath.ToSlash(rel), target)
		case info.Mode().IsRegular():
			fmt.Fprintf(h, "F %q %d %t\n", filepath.ToSlash(rel), info.Size(), info.Mode()&0o111 != 0)
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash C API source %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cacheKey identifies one built library: same source, crate, target and
// toolchain give the same key, so the cached library can be reused.
func cacheKey(tree, crate, library string, features []string, t platform.Platform, tc *Toolchain) string {
	h := sha256.New()
	fmt.Fprintf(h, "capi-v1\ntree=%s\ncrate=%s\nlib=%s\ntriple=%s\nrustc=%s\ncargo=%s\ncc=%s %s\n",
		tree, crate, library, t.RustTriple, tc.RustcVersion, tc.CargoVersion, tc.CC[t.RustTriple], tc.CCVersion[t.RustTriple])
	if len(features) > 0 {
		// Only with features, so the keys of existing entries stay.
		fmt.Fprintf(h, "features=%s\n", strings.Join(features, ","))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
