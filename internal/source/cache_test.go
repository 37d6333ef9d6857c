package source

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCorruptFileDetectedDroppedRefetched flips a byte in a cached file
// after Fetch handed the tree out (what apply does): Materialize notices it,
// drops the entry with one notice naming the file, fetches again and
// succeeds in the same run.
func TestCorruptFileDetectedDroppedRefetched(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	var notes noticeLog
	req := Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir(), Notice: notes.notice}
	tree := fetch(t, req)

	flipCached(t, tree, "pkg/a/a.go")

	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	require.Len(t, notes.all(), 1)
	assert.Contains(t, notes.all()[0], "pkg/a/a.go")
	assert.Contains(t, notes.all()[0], "dropped it and fetching again")
	assert.Equal(t, int64(2), srv.uploadPacks.Load(), "the corrupt entry must be refetched")

	// The fresh entry serves the next run without a word.
	again := fetch(t, req)
	require.NoError(t, again.Materialize(context.Background(), filepath.Join(t.TempDir(), "work")))
	assert.Len(t, notes.all(), 1)
	assert.Equal(t, int64(2), srv.uploadPacks.Load())
}

// TestCorruptEntriesDetectedByFetch damages the entry in ways Fetch itself
// must notice before handing the tree out.
func TestCorruptEntriesDetectedByFetch(t *testing.T) {
	f := newFixture(t)
	damages := map[string]func(t *testing.T, tree *Tree){
		"pack deleted": func(t *testing.T, tree *Tree) {
			packs, _ := filepath.Glob(filepath.Join(tree.GitDir, "objects", "pack", "*.pack"))
			require.Len(t, packs, 1)
			require.NoError(t, os.Remove(packs[0]))
		},
		"pack index garbled": func(t *testing.T, tree *Tree) {
			// An index that cannot be read says nothing about the pack.
			idx, _ := filepath.Glob(filepath.Join(tree.GitDir, "objects", "pack", "*.idx"))
			require.Len(t, idx, 1)
			require.NoError(t, os.Chmod(idx[0], 0o644))
			require.NoError(t, os.WriteFile(idx[0], []byte("not an index"), 0o644))
		},
		"file list edited": func(t *testing.T, tree *Tree) {
			meta := filepath.Join(filepath.Dir(tree.GitDir), entryFile)
			data, err := os.ReadFile(meta)
			require.NoError(t, err)
			data = []byte(strings.Replace(string(data), `"p":"foo.txt"`, `"p":"foo.txt2"`, 1))
			require.NoError(t, os.WriteFile(meta, data, 0o644))
		},
		"blob store gone": func(t *testing.T, tree *Tree) {
			require.NoError(t, os.Remove(tree.blobs))
		},
		"blob store truncated": func(t *testing.T, tree *Tree) {
			fi, err := os.Stat(tree.blobs)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(tree.blobs, fi.Size()-1))
		},
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			var notes noticeLog
			req := Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir(), Notice: notes.notice}
			damage(t, fetch(t, req))
			tree := fetch(t, req)
			require.Len(t, notes.all(), 1)
			assert.Contains(t, notes.all()[0], "is not usable")
			dst := filepath.Join(t.TempDir(), "work")
			require.NoError(t, tree.Materialize(context.Background(), dst))
			requireWorkTree(t, dst, f.rel, f.repo, f.rel)
		})
	}
}

// TestCorruptPackByteDetectedByMaterialize flips a byte inside the pack:
// the pack checksum catches it, and the entry is fetched again in the run.
func TestCorruptPackByteDetectedByMaterialize(t *testing.T) {
	f := newFixture(t)
	var notes noticeLog
	req := Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir(), Notice: notes.notice}
	tree := fetch(t, req)
	packs, _ := filepath.Glob(filepath.Join(tree.GitDir, "objects", "pack", "*.pack"))
	require.Len(t, packs, 1)
	require.NoError(t, os.Chmod(packs[0], 0o644))
	data, err := os.ReadFile(packs[0])
	require.NoError(t, err)
	data[len(data)/2] ^= 0xff
	require.NoError(t, os.WriteFile(packs[0], data, 0o644))

	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	require.Len(t, notes.all(), 1)
	assert.Contains(t, notes.all()[0], ".pack")
}

// TestConcurrentFetchSamePin: goroutines fetching the same pin share one
// fetch and end with one valid entry.
func TestConcurrentFetchSamePin(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	cache := t.TempDir()
	req := Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: cache}
	const n = 6
	trees := make([]*Tree, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			trees[i], errs[i] = Fetch(context.Background(), req)
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, trees[0].dir, trees[i].dir)
	}
	assert.Equal(t, int64(1), srv.uploadPacks.Load())
	assert.Equal(t, []string{"git-" + f.rel}, cacheEntries(t, cache))
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, trees[n-1].Materialize(context.Background(), dst))
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
}

// Environment of the helper process started by TestConcurrentFetchProcesses.
const (
	helperURL    = "EPP_BUILD_SOURCE_HELPER_URL"
	helperCommit = "EPP_BUILD_SOURCE_HELPER_COMMIT"
	helperCache  = "EPP_BUILD_SOURCE_HELPER_CACHE"
)

// TestConcurrentFetchProcesses: separate processes fetching the same pin
// into one cache fetch once (the flock, not a mutex, serialises them).
func TestConcurrentFetchProcesses(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	cache := t.TempDir()
	const n = 3
	cmds := make([]*exec.Cmd, n)
	outs := make([]strings.Builder, n)
	// A lock that is never released would hold the helpers for ever: bound
	// them, so that shows as this test's failure.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := range n {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperURL+"="+f.repo.HTTPURL(srv.URL), helperCommit+"="+f.rel, helperCache+"="+cache)
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		err := cmd.Wait()
		require.NoError(t, ctx.Err(), "the fetching processes did not end: a cache lock is never released")
		require.NoError(t, err, "helper %d: %s", i, outs[i].String())
		assert.Contains(t, outs[i].String(), "PASS")
	}
	assert.Equal(t, int64(1), srv.uploadPacks.Load())
	assert.Equal(t, []string{"git-" + f.rel}, cacheEntries(t, cache))
}

// TestMain runs the child of TestConcurrentFetchProcesses when the
// parent's variables say so, and the tests otherwise.
func TestMain(m *testing.M) {
	if url := os.Getenv(helperURL); url != "" {
		os.Exit(fetchAsChild(url))
	}
	os.Exit(m.Run())
}

// fetchAsChild is one of TestConcurrentFetchProcesses' processes: it
// fetches the pin into the shared cache and says PASS.
func fetchAsChild(url string) int {
	commit := os.Getenv(helperCommit)
	tree, err := Fetch(context.Background(), Request{Pin: pin(url, "v1.0.0", commit), Kind: Git, CacheDir: os.Getenv(helperCache)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if tree.BaseCommit != commit {
		fmt.Fprintf(os.Stderr, "fetched %s, want %s\n", tree.BaseCommit, commit)
		return 1
	}
	fmt.Println("PASS")
	return 0
}

// TestBlobStoreHoldsEachBlobOnce: files with the same content share one
// range of the blob store, and each still materializes with its own mode.
func TestBlobStoreHoldsEachBlobOnce(t *testing.T) {
	r := gitfixture.New(t)
	r.WriteExec(t, "a/run.sh", "#!/bin/sh\necho same\n")
	commit := r.Commit(t, "twins", map[string]string{"b/copy.sh": "#!/bin/sh\necho same\n", "c.txt": "other\n"})
	r.Tag(t, "v1", commit, true)
	tree := fetch(t, Request{Pin: pin(r.FileURL(), "v1", commit), Kind: Git, CacheDir: t.TempDir()})
	a, b := cachedRange(t, tree, "a/run.sh"), cachedRange(t, tree, "b/copy.sh")
	assert.Equal(t, a.Offset, b.Offset)
	fi, err := os.Stat(tree.blobs)
	require.NoError(t, err)
	assert.Equal(t, a.Size+cachedRange(t, tree, "c.txt").Size, fi.Size(), "the store holds each blob once")

	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, commit, r, commit)
	run, err := os.Stat(filepath.Join(dst, "a", "run.sh"))
	require.NoError(t, err)
	cp, err := os.Stat(filepath.Join(dst, "b", "copy.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), run.Mode().Perm()&0o755)
	assert.Equal(t, os.FileMode(0o644), cp.Mode().Perm()&0o755)
}
