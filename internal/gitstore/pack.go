package gitstore

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/epp-build/epp-build/internal/killpoint"
)

// PackDir is where a git dir keeps its packs.
func PackDir(gitDir string) string { return filepath.Join(gitDir, "objects", "pack") }

// FileBlob is a blob whose content lies in a file: too large to hold in
// memory, it is streamed into the pack.
type FileBlob struct {
	Hash plumbing.Hash
	Path string
	Size int64
}

// WritePack stores the objects of s named by hashes, in that order, and
// then the file blobs as one pack, with its index, in gitDir. It returns
// the pack's name ("pack-<hash>"; "" when there is nothing to store).
//
// Objects are stored without deltas or compression (zlib stored blocks):
// compressing was most of a long series' apply time, and parsing the pack
// again to index it was most of writing a cache entry; here the index is
// built while the pack is written. hashes must not repeat; a file blob
// already among them, or listed twice, is stored once.
//
// s is only read on the calling goroutine (a store need not be safe for
// concurrent use); objects it holds in memory are encoded on a few
// workers.
func WritePack(gitDir string, s storer.EncodedObjectStorer, hashes []plumbing.Hash, files []FileBlob) (string, error) {
	files = uniqueFiles(hashes, files)
	if len(hashes) == 0 && len(files) == 0 {
		return "", nil
	}
	dir := PackDir(gitDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := CreateTempPack(dir)
	if err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	defer os.Remove(tmp.Name())
	p := &packWriter{sum: sha1.New(), idx: new(idxfile.Writer)}
	p.buf = bufio.NewWriterSize(io.MultiWriter(tmp, p.sum), 1<<16)
	p.z, _ = zlib.NewWriterLevel(io.Discard, zlib.NoCompression)
	err = p.write(s, hashes, files)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write pack: %w", err)
	}
	return InstallPack(dir, tmp.Name(), p.idx, p.trailer)
}

// CreateTempPack creates a file in the pack folder dir to write a pack
// into, under the name RepairPacks removes when a killed run leaves it.
func CreateTempPack(dir string) (*os.File, error) {
	return os.CreateTemp(dir, tmpPackPrefix)
}

// InstallPack gives the finished pack in the closed temporary file
// tmpPack (from CreateTempPack) its name, with the index idx has built,
// and returns the name ("pack-<trailer>").
func InstallPack(dir, tmpPack string, idx *idxfile.Writer, trailer [20]byte) (string, error) {
	base := filepath.Join(dir, "pack-"+hex.EncodeToString(trailer[:]))
	if err := idx.OnFooter(trailer); err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	idxTmp, err := writeIndex(idx, dir)
	if err != nil {
		return "", fmt.Errorf("write pack index: %w", err)
	}
	defer os.Remove(idxTmp)
	// Read-only, as git leaves them: a pack never changes.
	if err := os.Chmod(tmpPack, 0o444); err != nil {
		return "", err
	}
	// The index first: go-git lists a repository's packs by their .pack
	// files and fails every read when one has no .idx, while an .idx
	// without its pack is ignored (by git too). A kill between the two
	// renames leaves only the harmless one; RepairPacks removes it.
	if err := os.Rename(idxTmp, base+".idx"); err != nil {
		return "", err
	}
	if packRenamed != nil {
		packRenamed()
	}
	killpoint.At("pack-index-renamed")
	if err := os.Rename(tmpPack, base+".pack"); err != nil {
		return "", err
	}
	return filepath.Base(base), nil
}

// RemovePack deletes the pack name ("pack-<hash>") and its index from
// gitDir; a pack already gone is not an error.
func RemovePack(gitDir, name string) error {
	for _, ext := range []string{".idx", ".pack"} {
		if err := os.Remove(filepath.Join(PackDir(gitDir), name+ext)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// packRenamed lets a test stop a write between the two renames, where a
// kill would.
var packRenamed func()

// writeIndex writes the finished pack index w to a new temporary file in
// dir and returns its name.
func writeIndex(w *idxfile.Writer, dir string) (string, error) {
	index, err := w.Index()
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, tmpIdxPrefix)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriter(f)
	_, err = idxfile.NewEncoder(bw).Encode(index)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o444)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// uniqueFiles drops file blobs already among hashes or listed twice: a
// pack must hold each object once.
func uniqueFiles(hashes []plumbing.Hash, files []FileBlob) []FileBlob {
	if len(files) == 0 {
		return nil
	}
	seen := make(map[plumbing.Hash]bool, len(hashes)+len(files))
	for _, h := range hashes {
		seen[h] = true
	}
	var out []FileBlob
	for _, f := range files {
		if !seen[f.Hash] {
			seen[f.Hash] = true
			out = append(out, f)
		}
	}
	return out
}
