package source

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/recipe"
)

// ModuleHash is the h1: hash of the module zip the go command makes of
// this tree for mod@version: the hash a module proxy serves and the
// checksum database records. The zip holds what golang.org/x/mod/zip
// keeps of the commit's files (no nested modules, no vendor/ packages, no
// symlinks, no submodules), named mod@version/<path>, so the hash
// depends on mod and version as well as on the files. It is computed once
// per cache entry and module version and kept in the entry's metadata, so
// a warm run does not zip the tree again.
//
// The tree is taken to be the module's root (the module's go.mod at the
// top), as for a module whose path is its repository's.
func (t *Tree) ModuleHash(ctx context.Context, mod, version string) (string, error) {
	if t.entry == nil {
		return "", fmt.Errorf("module hash: the tree does not come from source.Fetch")
	}
	key := mod + "@" + version
	if h := t.entry.ModuleHashes[key]; h != "" {
		return h, nil
	}
	if t.entry.Via == GoProxy && t.entry.Module == mod && t.entry.ModuleVersion == version {
		// The entry is the proxy's zip, whose hash Fetch checked.
		return t.entry.ModuleHash, nil
	}
	h, err := t.computeModuleHash(module.Version{Path: mod, Version: version})
	if err != nil {
		return "", fmt.Errorf("module hash of %s from the tree of commit %s: %w", key, t.Commit, err)
	}
	if t.entry.ModuleHashes == nil {
		t.entry.ModuleHashes = map[string]string{}
	}
	t.entry.ModuleHashes[key] = h
	// Keeping it is only a saving: a failure to record it costs a zip on
	// the next run, not a wrong answer.
	_ = t.recordModuleHash(ctx, key, h)
	return h, nil
}

// moduleZips counts the module zips made of cached trees (tests check
// that a warm run makes none).
var moduleZips atomic.Int64

// computeModuleHash hashes the files the go command would put in the
// module zip, under the names they would have there: the zip's h1: hash
// (dirhash.Hash1 over names and contents), without compressing anything.
// The files are chosen by golang.org/x/mod/zip's own rules (CheckFiles,
// which its Create applies), so what counts is exactly what the go
// command counts.
func (t *Tree) computeModuleHash(mv module.Version) (string, error) {
	moduleZips.Add(1)
	if err := module.Check(mv.Path, mv.Version); err != nil {
		return "", err
	}
	src, err := openBlobSource(t.blobs, nil)
	if err != nil {
		return "", err
	}
	defer src.close()
	var files []modzip.File
	byPath := map[string]treeFile{}
	for _, f := range t.entry.Files {
		// A submodule is not in `git archive`, from which the go command
		// zips a commit; a symlink is left out by the zip rules.
		if f.isGitlink() {
			continue
		}
		tf := treeFile{f: f, src: src}
		files = append(files, tf)
		byPath[f.Path] = tf
	}
	cf, err := modzip.CheckFiles(files)
	if err != nil {
		return "", err
	}
	if err := cf.Err(); err != nil {
		return "", err
	}
	prefix := mv.Path + "@" + mv.Version + "/"
	names := make([]string, 0, len(cf.Valid))
	for _, p := range cf.Valid {
		names = append(names, prefix+p)
	}
	return dirhash.Hash1(names, func(name string) (io.ReadCloser, error) {
		return byPath[strings.TrimPrefix(name, prefix)].Open()
	})
}

// recordModuleHash adds key's hash to the entry's metadata on disk, under
// the entry's lock, keeping whatever else the file holds.
func (t *Tree) recordModuleHash(ctx context.Context, key, h string) error {
	c := &cache{root: filepath.Dir(t.dir)}
	unlock, err := c.lock(ctx, filepath.Base(t.dir))
	if err != nil {
		return err
	}
	defer unlock()
	name := filepath.Join(t.dir, entryFile)
	// A run killed in the write below left its temporary file, under a
	// random name no later write replaces; the lock says no run is
	// writing one now. A hash is recorded again after such a kill, since
	// it was not stored, so this is where the next run comes.
	if _, err := atomicfile.RemoveLeftoversOf(name); err != nil {
		return err
	}
	data, err := inputfile.ReadFile(name, "", entryMetaLimit)
	if err != nil {
		return err
	}
	var m entryMeta
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if m.BaseCommit != t.BaseCommit {
		return fmt.Errorf("entry %s was replaced", t.dir)
	}
	if m.ModuleHashes == nil {
		m.ModuleHashes = map[string]string{}
	}
	m.ModuleHashes[key] = h
	out, err := json.Marshal(&m)
	if err != nil {
		return err
	}
	return atomicfile.Write(name, out, 0o644)
}

// treeFile is one cached file as golang.org/x/mod/zip reads it; its
// content is checked against its blob hash as it is read.
type treeFile struct {
	f   fileEntry
	src blobSource
}

func (tf treeFile) Path() string { return tf.f.Path }

func (tf treeFile) Lstat() (os.FileInfo, error) { return treeFileInfo{tf.f}, nil }

func (tf treeFile) Open() (io.ReadCloser, error) {
	want, err := hex.DecodeString(tf.f.Hash)
	if err != nil || len(want) != 20 {
		return nil, corruptf("file %s: blob hash %q", tf.f.Path, tf.f.Hash)
	}
	data, err := tf.src.verified(tf.f, [20]byte(want))
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

// treeFileInfo is a cached file's stat data: a symlink or a regular file
// (module zips have no modes, so 0644 or 0755 is as good as git's).
type treeFileInfo struct{ f fileEntry }

func (i treeFileInfo) Name() string { return path.Base(i.f.Path) }
func (i treeFileInfo) Size() int64  { return i.f.Size }
func (i treeFileInfo) Mode() fs.FileMode {
	switch {
	case i.f.isSymlink():
		return fs.ModeSymlink | 0o777
	case i.f.isExec():
		return 0o755
	}
	return 0o644
}
func (i treeFileInfo) ModTime() time.Time { return time.Time{} }
func (i treeFileInfo) IsDir() bool        { return false }
func (i treeFileInfo) Sys() any           { return nil }

// CachedModuleHash is ModuleHash for pin's commit when the cache under
// cacheDir ("" = the user cache folder) holds its git or path tree, with
// no network: ok is false when it holds none. The hash is computed once
// per entry, as for Fetch.
func CachedModuleHash(ctx context.Context, cacheDir string, pin recipe.Upstream) (hash string, ok bool, err error) {
	if pin.Module == "" || pin.ModuleVersion == "" || !fullHash.MatchString(pin.Commit) {
		return "", false, nil
	}
	if cacheDir == "" {
		if cacheDir, err = CacheDir(); err != nil {
			return "", false, err
		}
	}
	c := &cache{root: filepath.Join(cacheDir, "upstream")}
	tree := c.lookup(ctx, "git-"+pin.Commit, expectation{commit: pin.Commit})
	if tree == nil {
		return "", false, nil
	}
	hash, err = tree.ModuleHash(ctx, pin.Module, pin.ModuleVersion)
	return hash, err == nil, err
}
