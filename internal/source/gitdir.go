package source

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/gitstore"
)

// writeBareRepo makes gitDir a bare repository around its pack: HEAD
// detached at the base commit, the upstream ref, and the shallow file when
// the commit's parents are absent.
func writeBareRepo(gitDir string, m *entryMeta) error {
	return writeGitDir(gitDir, m, true)
}

// writeGitDir writes the non-object parts of a git dir.
func writeGitDir(gitDir string, m *entryMeta, bare bool) error {
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "refs/epp-build", "info"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o755); err != nil {
			return err
		}
	}
	config := fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = %t\n", bare)
	if !bare {
		config += "\tlogallrefupdates = true\n"
	}
	files := map[string]string{
		"HEAD":                    m.BaseCommit + "\n",
		"config":                  config,
		"refs/epp-build/upstream": m.BaseCommit + "\n",
		"description":             "upstream " + m.Commit + " from " + m.Origin + "\n",
	}
	if m.Shallow {
		files["shallow"] = m.BaseCommit + "\n"
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(gitDir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// verifyObjects checks the pack against the metadata: the index names the
// pack, holds every tree and blob, and the commit object hashes to
// BaseCommit and points at the tree.
func verifyObjects(gitDir string, m *entryMeta, trees [][20]byte) error {
	dir := gitstore.PackDir(gitDir)
	idxData, err := os.ReadFile(filepath.Join(dir, m.Pack+".idx"))
	if err != nil {
		return corruptf("%v", err)
	}
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(idxData)).Decode(idx); err != nil {
		return corruptf("pack index %s: %v", m.Pack, err)
	}
	if "pack-"+hex.EncodeToString(idx.PackfileChecksum[:]) != m.Pack {
		return corruptf("pack index %s describes pack %x", m.Pack, idx.PackfileChecksum)
	}
	pf, err := os.Open(filepath.Join(dir, m.Pack+".pack"))
	if err != nil {
		return corruptf("%v", err)
	}
	defer pf.Close()
	var trailer [20]byte
	if fi, err := pf.Stat(); err != nil || fi.Size() < 32 {
		return corruptf("pack %s is truncated", m.Pack)
	} else if _, err := pf.ReadAt(trailer[:], fi.Size()-20); err != nil {
		return corruptf("pack %s: %v", m.Pack, err)
	}
	if trailer != idx.PackfileChecksum {
		return corruptf("pack %s ends with checksum %x", m.Pack, trailer)
	}
	has := func(h [20]byte) bool {
		ok, err := idx.Contains(plumbing.Hash(h))
		return err == nil && ok
	}
	for _, h := range trees {
		if !has(h) {
			return corruptf("tree %x is missing from pack %s", h, m.Pack)
		}
	}
	for _, f := range m.Files {
		if f.isGitlink() {
			continue
		}
		h, _ := parseHash(f.Hash)
		if !has(h) {
			return corruptf("blob %s (%s) is missing from pack %s", f.Hash, f.Path, m.Pack)
		}
	}
	return verifyCommit(gitDir, m, idx, has)
}

// verifyCommit reads the commit object from the pack and checks its hash,
// tree and parents.
func verifyCommit(gitDir string, m *entryMeta, idx *idxfile.MemoryIndex, has func([20]byte) bool) error {
	fs := osfs.New(gitstore.PackDir(gitDir))
	bf, err := fs.Open(m.Pack + ".pack")
	if err != nil {
		return corruptf("%v", err)
	}
	defer bf.Close()
	base := plumbing.NewHash(m.BaseCommit)
	obj, err := packfile.NewPackfile(idx, nil, bf, 0).Get(base)
	if err != nil {
		return corruptf("commit %s in pack %s: %v", m.BaseCommit, m.Pack, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return corruptf("commit %s: %v", m.BaseCommit, err)
	}
	content, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return corruptf("commit %s: %v", m.BaseCommit, err)
	}
	if obj.Type() != plumbing.CommitObject {
		return corruptf("object %s is a %s, not a commit", m.BaseCommit, obj.Type())
	}
	if got := gitformat.ObjectID("commit", content); hex.EncodeToString(got[:]) != m.BaseCommit {
		return corruptf("commit object %s hashes to %x", m.BaseCommit, got)
	}
	var c object.Commit
	if err := c.Decode(obj); err != nil {
		return corruptf("commit %s: %v", m.BaseCommit, err)
	}
	if c.TreeHash.String() != m.Tree {
		return corruptf("commit %s has tree %s, the entry lists tree %s", m.BaseCommit, c.TreeHash, m.Tree)
	}
	missingParent := false
	for _, p := range c.ParentHashes {
		if !has(p) {
			missingParent = true
		}
	}
	if missingParent != m.Shallow {
		return corruptf("commit %s: shallow is %t but parents missing is %t", m.BaseCommit, m.Shallow, missingParent)
	}
	return nil
}
