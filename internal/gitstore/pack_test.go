package gitstore

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

func blob(t *testing.T, s *memory.Storage, data []byte) plumbing.Hash {
	t.Helper()
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	h, err := s.SetEncodedObject(obj)
	require.NoError(t, err)
	return h
}

// TestWritePackGitReads: objects encoded on the workers, one streamed for
// its size and file blobs (one also in the store, one listed twice) make
// a pack git verifies, each object once.
func TestWritePackGitReads(t *testing.T) {
	repo := gitfixture.New(t)
	gitDir := filepath.Join(repo.Dir, ".git")
	s := memory.NewStorage()
	var hashes []plumbing.Hash
	for i := range 300 {
		hashes = append(hashes, blob(t, s, []byte(strings.Repeat("x", i)+"\n")))
	}
	large := bytes.Repeat([]byte("large\n"), streamAbove/3)
	hashes = append(hashes, blob(t, s, large))

	big := filepath.Join(t.TempDir(), "big")
	bigData := bytes.Repeat([]byte("0123456789abcdef"), 70000)
	require.NoError(t, os.WriteFile(big, bigData, 0o644))
	bigHash := plumbing.ComputeHash(plumbing.BlobObject, bigData)
	again := filepath.Join(t.TempDir(), "again")
	require.NoError(t, os.WriteFile(again, []byte("\n"), 0o644))
	files := []FileBlob{
		{Hash: bigHash, Path: big, Size: int64(len(bigData))},
		{Hash: bigHash, Path: big, Size: int64(len(bigData))},
		{Hash: plumbing.ComputeHash(plumbing.BlobObject, []byte("\n")), Path: again, Size: 1},
	}

	name, err := WritePack(gitDir, s, hashes, files)
	require.NoError(t, err)
	out := gitfixture.Git(t, repo.Dir, "verify-pack", "-v", filepath.Join(PackDir(gitDir), name+".idx"))
	assert.Contains(t, out, "non delta: 302 objects")
	assert.Equal(t, string(large), gitfixture.Git(t, repo.Dir, "cat-file", "blob", hashes[300].String())+"\n")
	assert.Equal(t, len(bigData), len(gitfixture.Git(t, repo.Dir, "cat-file", "blob", bigHash.String())))
	fi, err := os.Stat(filepath.Join(PackDir(gitDir), name+".pack"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o444), fi.Mode().Perm(), "read-only, as git leaves packs")

	again2, err := WritePack(gitDir, s, hashes, files)
	require.NoError(t, err)
	assert.Equal(t, name, again2, "the same objects make the same pack")
	require.NoError(t, RemovePack(gitDir, name))
	assert.NoFileExists(t, filepath.Join(PackDir(gitDir), name+".pack"))
}

// TestWritePackFromARepository: objects a repository holds on disk (small
// ones come back in memory, large ones are read from their pack as they
// are written) are copied whole.
func TestWritePackFromARepository(t *testing.T) {
	repo := gitfixture.New(t)
	repo.WriteBytes(t, "large.bin", bytes.Repeat([]byte("a large file\n"), 10000))
	commit := repo.Commit(t, "files", map[string]string{"small.txt": "small\n"})
	repo.Git(t, "gc", "-q")
	src := filesystem.NewStorage(osfs.New(filepath.Join(repo.Dir, ".git")), gitcache.NewObjectLRUDefault())
	var hashes []plumbing.Hash
	for _, line := range strings.Split(repo.Git(t, "rev-list", "--objects", commit), "\n") {
		hashes = append(hashes, plumbing.NewHash(strings.Fields(line)[0]))
	}

	dst := gitfixture.New(t)
	gitDir := filepath.Join(dst.Dir, ".git")
	name, err := WritePack(gitDir, src, hashes, nil)
	require.NoError(t, err)
	gitfixture.Git(t, dst.Dir, "verify-pack", filepath.Join(PackDir(gitDir), name+".idx"))
	for _, h := range hashes {
		want, err := src.EncodedObject(plumbing.AnyObject, h)
		require.NoError(t, err)
		r, err := want.Reader()
		require.NoError(t, err)
		data, err := io.ReadAll(r)
		require.NoError(t, err)
		got := gitfixture.Git(t, dst.Dir, "cat-file", want.Type().String(), h.String())
		if want.Type() == plumbing.BlobObject {
			assert.Equal(t, strings.TrimSpace(string(data)), got, h.String())
		}
	}
}
