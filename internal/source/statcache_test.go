package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// regularFiles counts the regular files of an entry's file list.
func regularFiles(tree *Tree) int64 {
	n := int64(0)
	for _, f := range tree.entry.Files {
		if !f.isSymlink() && !f.isGitlink() {
			n++
		}
	}
	return n
}

// TestStatCacheSparesUnchangedFiles: the files a fetch just wrote, and the
// same files on a later run, are copied without being read and hashed; the
// work tree is still exactly the commit's.
func TestStatCacheSparesUnchangedFiles(t *testing.T) {
	f := newFixture(t)
	req := Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()}
	for _, run := range []string{"cold", "warm"} {
		tree := fetch(t, req)
		require.Equal(t, run == "warm", tree.Cached)
		before := hashedFiles.Load()
		dst := filepath.Join(t.TempDir(), "work")
		require.NoError(t, tree.Materialize(context.Background(), dst))
		assert.Zero(t, hashedFiles.Load()-before, "%s: files hashed although the stat cache vouches for them", run)
		requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	}
}

// TestStatCacheSeesEditWithRestoredMtime: a cached file's content rewritten
// with the same size, the store dated back to its recorded mtime, still
// differs in ctime, so it is hashed, found damaged, and the entry is
// fetched again.
func TestStatCacheSeesEditWithRestoredMtime(t *testing.T) {
	f := newFixture(t)
	var notes noticeLog
	req := Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir(), Notice: notes.notice}
	tree := fetch(t, req)
	fi, err := os.Stat(tree.blobs)
	require.NoError(t, err)
	flipCached(t, tree, "foo.txt") // same size
	require.NoError(t, os.Chtimes(tree.blobs, fi.ModTime(), fi.ModTime()))

	before := hashedFiles.Load()
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	assert.Positive(t, hashedFiles.Load()-before)
	require.Len(t, notes.all(), 1)
	assert.Contains(t, notes.all()[0], "foo.txt")
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
}

// TestStatCacheMissingHashesEverything: without the stat file (an entry
// from an older version, or a damaged hint) every file is hashed, and the
// tree is right.
func TestStatCacheMissingHashesEverything(t *testing.T) {
	f := newFixture(t)
	req := Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()}
	tree := fetch(t, req)
	for _, damage := range []func() error{
		func() error { return os.WriteFile(filepath.Join(tree.dir, statFile), []byte("{not json"), 0o644) },
		func() error { return os.Remove(filepath.Join(tree.dir, statFile)) },
	} {
		require.NoError(t, damage())
		before := hashedFiles.Load()
		dst := filepath.Join(t.TempDir(), "work")
		require.NoError(t, tree.Materialize(context.Background(), dst))
		assert.Equal(t, regularFiles(tree), hashedFiles.Load()-before)
		requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	}
}

// TestStatCacheRacyOrChanged: the store is trusted only when every recorded
// field matches and it was written before the second the data was
// recorded in (racy git); otherwise it is hashed.
func TestStatCacheRacyOrChanged(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(name, []byte("content\n"), 0o644))
	var raw unix.Stat_t
	require.NoError(t, unix.Stat(name, &raw))
	st := statOfUnix(&raw)
	now := st
	mtime := time.Unix(0, st.Mtime)

	later := &statSnapshot{Taken: mtime.Add(2 * time.Second), Store: st}
	assert.True(t, later.unchanged(now), "recorded seconds after the write: trusted")

	sameSecond := &statSnapshot{Taken: mtime.Truncate(time.Second).Add(999 * time.Millisecond), Store: st}
	assert.False(t, sameSecond.unchanged(now), "recorded in the second of the write: racily clean, hashed")

	for field, edit := range map[string]func(*fileStat){
		"size":  func(s *fileStat) { s.Size++ },
		"mtime": func(s *fileStat) { s.Mtime++ },
		"ctime": func(s *fileStat) { s.Ctime++ },
		"inode": func(s *fileStat) { s.Ino++ },
		"dev":   func(s *fileStat) { s.Dev++ },
	} {
		changed := st
		edit(&changed)
		snap := &statSnapshot{Taken: later.Taken, Store: changed}
		assert.False(t, snap.unchanged(now), "a different %s must be hashed", field)
	}
	assert.False(t, (*statSnapshot)(nil).unchanged(now), "no stat data at all: hashed")
}

// TestFetchWritesEveryBlobSize: blobs small, empty and larger than what
// the writers hold in memory (streamed), decoded by the writers or by the
// walk, land with the right content, size and mode, and all of them are
// trusted on the next copy.
func TestFetchWritesEveryBlobSize(t *testing.T) {
	r := gitfixture.New(t)
	big := make([]byte, inlineBlobSize+12345)
	for i := range big {
		big[i] = byte(i*7 + i/4096)
	}
	r.WriteBytes(t, "data/big.bin", big)
	r.WriteBytes(t, "data/empty", nil)
	r.WriteExec(t, "run.sh", "#!/bin/sh\n")
	commit := r.Commit(t, "sizes", map[string]string{"small.txt": "small\n"})
	r.Tag(t, "v1", commit, true)
	// A git fetch has the writers decode the blobs; a local repository has
	// them decoded (and the large one streamed) by the walk.
	for _, req := range []Request{
		{Pin: pin(r.FileURL(), "v1", commit), Kind: Git, CacheDir: t.TempDir()},
		{Pin: pin("", "v1", commit), Kind: Path, Upstream: r.Dir, CacheDir: t.TempDir()},
	} {
		tree := fetch(t, req)
		sizes := map[string]int64{}
		for _, f := range tree.entry.Files {
			sizes[f.Path] = f.Size
		}
		assert.Equal(t, map[string]int64{"data/big.bin": int64(len(big)), "data/empty": 0, "run.sh": 10, "small.txt": 6}, sizes, req.Kind)
		before := hashedFiles.Load()
		dst := filepath.Join(t.TempDir(), "work")
		require.NoError(t, tree.Materialize(context.Background(), dst))
		assert.Zero(t, hashedFiles.Load()-before, req.Kind)
		requireWorkTree(t, dst, commit, r, commit)
		got, err := os.ReadFile(filepath.Join(dst, "data", "big.bin"))
		require.NoError(t, err)
		assert.Equal(t, big, got, req.Kind)
	}
}
