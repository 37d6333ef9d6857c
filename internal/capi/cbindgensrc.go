package capi

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/epp-build/epp-build/internal/filetree"
)

// Rust 2024 marks the attributes that affect linking as unsafe:
// #[unsafe(no_mangle)], #[unsafe(export_name = "…")],
// #[unsafe(link_section = "…")]. cbindgen before 0.27 (Debian bookworm ships
// 0.24.3) cannot parse them and fails on the whole crate, and recent Dynamo
// lib.rs files use #[unsafe(no_mangle)] on every exported function. The
// attributes mean the same without the wrapper, so cbindgen reads a
// temporary copy of the sources with the wrapper removed (cbindgenCopy).
var unsafeAttr = regexp.MustCompile(`\bunsafe\s*\(\s*(no_mangle|export_name\s*=\s*"[^"]*"|link_section\s*=\s*"[^"]*")\s*\)`)

// unsafeExternBlock is a Rust 2024 `unsafe extern "…" {` block, which
// older cbindgen cannot parse either; `unsafe extern "C" fn` is left alone.
var unsafeExternBlock = regexp.MustCompile(`\bunsafe\s+(extern\s+"[^"]*"\s*\{)`)

// rewriteUnsafeAttrs returns src with the unsafe(...) wrappers above
// removed, and whether anything changed.
func rewriteUnsafeAttrs(src []byte) ([]byte, bool) {
	if !bytes.Contains(src, []byte("unsafe")) {
		return src, false
	}
	out := unsafeAttr.ReplaceAll(src, []byte("$1"))
	out = unsafeExternBlock.ReplaceAll(out, []byte("$1"))
	return out, !bytes.Equal(out, src)
}

func skipInCbindgenCopy(name string) bool { return name == ".git" || name == "target" }

// cbindgenCopy lays out a copy of the tree at src in dst for cbindgen to
// read, and never writes into src. Rust files are copied with the unsafe
// attribute wrappers removed; files cargo may write back (Cargo.lock) and
// the manifests and configuration cargo and cbindgen read are copied;
// every other file is a symbolic link to the original, so a large checkout
// costs little. .git and target folders are left out.
func cbindgenCopy(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if p != src && skipInCbindgenCopy(d.Name()) {
				return filepath.SkipDir
			}
			return os.MkdirAll(out, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		case !d.Type().IsRegular():
			return nil
		case strings.HasSuffix(d.Name(), ".rs"):
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			data, _ = rewriteUnsafeAttrs(data)
			return os.WriteFile(out, data, 0o644)
		case strings.HasSuffix(d.Name(), ".toml") || d.Name() == "Cargo.lock" || d.Name() == "rust-toolchain":
			return filetree.CopyFile(p, out, 0)
		default:
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			return os.Symlink(abs, out)
		}
	})
}

// cbindgenSourceDir lays out a rewritten copy of the tree at srcDir (the
// workspace root; "" = the crate folder) under scratch and returns the
// crate's place in it, with a cleanup that removes the copy. cbindgen
// always reads the copy: cargo metadata, which it runs, needs the workspace
// and its path dependencies, and may write a Cargo.lock, which must never
// land in the checkout.
func cbindgenSourceDir(srcDir, crateDir, scratch string) (dir string, cleanup func(), err error) {
	root, rel := srcDir, "."
	if root != "" {
		r, err := filepath.Rel(root, crateDir)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			root = ""
		} else {
			rel = r
		}
	}
	if root == "" {
		root = crateDir
	}
	copyDir := filepath.Join(scratch, "cbindgen-src")
	if err := os.RemoveAll(copyDir); err != nil {
		return "", nil, err
	}
	cleanup = func() { _ = os.RemoveAll(copyDir) }
	if err := cbindgenCopy(root, copyDir); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("copy %s for cbindgen: %w", root, err)
	}
	return filepath.Join(copyDir, rel), cleanup, nil
}
