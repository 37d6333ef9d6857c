package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// readable is whether go-git reads the object h of the repository dir.
func readable(t *testing.T, dir string, h plumbing.Hash) error {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	require.NoError(t, err)
	_, err = repo.Storer.EncodedObject(plumbing.AnyObject, h)
	return err
}

type stopped struct{}

// TestPackWriteStoppedBetweenRenames: a write stopped between its two
// renames leaves nothing that makes go-git fail, and RepairPacks removes
// what it left.
func TestPackWriteStoppedBetweenRenames(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "initial", map[string]string{"a.txt": "a\n"})
	gitfixture.Git(t, repo.Dir, "repack", "-adq") // HEAD read from a pack, as in a tree apply made
	head := plumbing.NewHash(gitfixture.Git(t, repo.Dir, "rev-parse", "HEAD"))
	gitDir := filepath.Join(repo.Dir, ".git")
	s := memory.NewStorage()
	h := blob(t, s, []byte("in the pack\n"))

	packRenamed = func() { panic(stopped{}) }
	t.Cleanup(func() { packRenamed = nil })
	func() {
		defer func() { assert.Equal(t, stopped{}, recover()) }()
		_, _ = WritePack(gitDir, s, []plumbing.Hash{h}, nil)
	}()
	assert.NoError(t, readable(t, repo.Dir, head), "go-git still reads the repository")
	left, _ := filepath.Glob(filepath.Join(PackDir(gitDir), "*"))
	assert.NotEmpty(t, left, "the write left its index")

	done, err := RepairPacks(gitDir)
	require.NoError(t, err)
	assert.NotEmpty(t, done)
	left, _ = filepath.Glob(filepath.Join(PackDir(gitDir), "*"))
	assert.Len(t, left, 2, "the repack's pack and index only")
	gitfixture.Git(t, repo.Dir, "fsck", "--strict")
}

// TestRepairPacksIndexesAPackWithoutIndex: what an earlier version left
// when killed between its renames (the pack, no index, temporaries) makes
// go-git fail every read until RepairPacks indexes the pack; a pack that
// is not whole is removed instead.
func TestRepairPacksIndexesAPackWithoutIndex(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "initial", map[string]string{"a.txt": "a\n"})
	gitfixture.Git(t, repo.Dir, "repack", "-adq") // HEAD read from a pack, as in a tree apply made
	head := plumbing.NewHash(gitfixture.Git(t, repo.Dir, "rev-parse", "HEAD"))
	gitDir := filepath.Join(repo.Dir, ".git")
	s := memory.NewStorage()
	h := blob(t, s, []byte("in the pack\n"))
	name, err := WritePack(gitDir, s, []plumbing.Hash{h}, nil)
	require.NoError(t, err)
	dir := PackDir(gitDir)
	require.NoError(t, os.Remove(filepath.Join(dir, name+".idx")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".idx.tmp"), []byte("half"), 0o444))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tmp_pack_123"), []byte("PACK"), 0o444))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pack-"+h.String()+".pack"), []byte("PACK half"), 0o444))
	assert.Error(t, readable(t, repo.Dir, head), "go-git fails on a pack without its index")

	_, err = RepairPacks(gitDir)
	require.NoError(t, err)
	assert.NoError(t, readable(t, repo.Dir, head))
	assert.NoError(t, readable(t, repo.Dir, h), "the pack was indexed, its objects are there")
	left, _ := filepath.Glob(filepath.Join(dir, "tmp_*"))
	assert.Empty(t, left)
	assert.FileExists(t, filepath.Join(dir, name+".idx"))
	assert.NoFileExists(t, filepath.Join(dir, name+".idx.tmp"))
	assert.NoFileExists(t, filepath.Join(dir, "pack-"+h.String()+".pack"), "not a whole pack")
	gitfixture.Git(t, repo.Dir, "fsck", "--strict")
}
