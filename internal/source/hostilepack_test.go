package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	hg "github.com/epp-build/epp-build/internal/testutil/hostilegit"
)

// receiveWith runs receivePack on data under lim into a fresh folder; it
// returns the error and what the pack folder and the blob store hold.
func receiveWith(t *testing.T, data []byte, lim gitLimits) (error, []os.DirEntry) {
	t.Helper()
	dir := t.TempDir()
	pool, err := newBlobWriter(filepath.Join(dir, "blobs"), time.Now(), nil)
	require.NoError(t, err)
	packDir := filepath.Join(dir, "pack")
	require.NoError(t, os.Mkdir(packDir, 0o755))
	_, err = receivePack(context.Background(), bytes.NewReader(data), packDir, pool, lim)
	_, _, cerr := pool.close()
	require.NoError(t, cerr)
	left, rerr := os.ReadDir(packDir)
	require.NoError(t, rerr)
	return err, left
}

// deltaBomb is a blob of 64 KiB of zeros and a valid delta on it whose
// copy commands make a result of at least resultSize bytes: a few hundred
// bytes on the wire.
func deltaBomb(resultSize uint64) []byte {
	const chunk = 0xffff
	base := make([]byte, chunk)
	delta := hg.DeltaOf(chunk, int((resultSize+chunk-1)/chunk), chunk)
	return hg.Pack(hg.Honest(hg.Blob, base), hg.Object{Type: hg.RefDelta, Size: int64(len(delta)), Data: delta, Base: hg.ID("blob", base)})
}

// bigTree is tree entries holding at least size bytes.
func bigTree(size int) []hg.Entry {
	var entries []hg.Entry
	for n := 0; n < size; n += 40 {
		entries = append(entries, hg.Entry{Mode: "100644", Name: fmt.Sprintf("f%08d", len(entries))})
	}
	return entries
}

// TestHostilePacksAreRefusedWithinTheLimits: each way a few bytes of pack
// could cost gigabytes, or a pack git calls corrupt could be taken, is
// refused, before the memory or disk is spent, and nothing is left in the
// pack folder. The limits are lowered so that the packs stay small; the
// refusal names the limit and the setting that raises it.
func TestHostilePacksAreRefusedWithinTheLimits(t *testing.T) {
	lim := defaultGitLimits()
	lim.objectBytes = 1 << 20
	lim.packBytes = 4 << 20
	lim.objects = 1000
	commit := []byte("tree " + strings.Repeat("0", 40) + "\n\nhostile\n")
	tree := hg.TreeOf(hg.Entry{Mode: "100644", Name: "f", ID: hg.ID("blob", nil)})
	zeros := make([]byte, 900<<10)
	limits := map[string]struct {
		data    []byte
		setting string
		limit   string
	}{
		"delta declaring more than an object":        {deltaBomb(2 << 20), MaxObjectEnv, "an object's size"},
		"commit declaring more than an object":       {hg.Pack(hg.Object{Type: hg.Commit, Size: 2 << 20, Data: bytes.Repeat([]byte{'x'}, 2<<20)}), MaxObjectEnv, "an object's size"},
		"more objects than the limit":                {hg.PackDeclaring(1<<32-1, hg.Honest(hg.Blob, []byte("x"))), MaxPackObjectsEnv, "the pack's object count"},
		"more bytes than the limit":                  {hg.Pack(hg.Object{Type: hg.Blob, Size: 1, Data: []byte("x"), Padding: 1 << 20}), MaxPackEnv, "the pack's size"},
		"trees holding more than an object together": {hg.Pack(hg.Honest(hg.Tree, hg.TreeOf(bigTree(600<<10)...)), hg.Honest(hg.Tree, hg.TreeOf(bigTree(600<<10+1)...))), MaxObjectEnv, "the pack's commits, trees and tags together"},
		"more inflated than the limit":               {hg.Pack(hg.Honest(hg.Blob, zeros), hg.Honest(hg.Blob, append(zeros, 1)), hg.Honest(hg.Blob, append(zeros, 2)), hg.Honest(hg.Blob, append(zeros, 3)), hg.Honest(hg.Blob, append(zeros, 4))), MaxPackEnv, "the pack's inflated size"},
	}
	for name, c := range limits {
		t.Run(name, func(t *testing.T) {
			err, left := receiveWith(t, c.data, lim)
			var limit *LimitError
			require.True(t, errors.As(err, &limit), "a *LimitError, got %v", err)
			assert.Equal(t, c.setting, limit.Setting)
			assert.Equal(t, c.limit, limit.Limit)
			assert.Contains(t, err.Error(), c.setting)
			assert.Empty(t, left, "nothing is left in the pack folder")
		})
	}
	corrupt := map[string]struct {
		data []byte
		want string
	}{
		"commit-underrun": {hg.Pack(hg.Object{Type: hg.Commit, Size: int64(len(commit)) + 10, Data: commit}), "a commit of"},
		"tree-underrun":   {hg.Pack(hg.Object{Type: hg.Tree, Size: int64(len(tree)) + 10, Data: tree}), "a tree of"},
		"reserved type 5": {hg.Pack(hg.Honest(hg.Reserved, []byte("x"))), "reserved"},
	}
	for name, c := range corrupt {
		t.Run(name, func(t *testing.T) {
			err, left := receiveWith(t, c.data, lim)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Empty(t, left, "nothing is left in the pack folder")
		})
	}
}

// hostileFetch fetches refs/tags/v1 at tip from a server answering with
// respond, into a fresh cache; it returns the error and the cache folder.
func hostileFetch(t *testing.T, tip [20]byte, respond func(io.Writer)) (*Tree, error, string) {
	t.Helper()
	url := hg.Serve(t, tip, respond)
	cacheDir := t.TempDir()
	tree, err := Fetch(context.Background(), Request{Pin: pin(url, "v1", hg.Hex(tip)), Kind: Git, CacheDir: cacheDir})
	return tree, err, cacheDir
}

// requireRefusedLeavingNothing: err is a *LimitError naming the server and
// setting, and the cache holds no entry and no half-built one.
func requireRefusedLeavingNothing(t *testing.T, err error, cacheDir, setting string) {
	t.Helper()
	var limit *LimitError
	require.True(t, errors.As(err, &limit), "a *LimitError, got %v", err)
	assert.Equal(t, setting, limit.Setting)
	assert.Contains(t, err.Error(), "/repo.git", "the message names the server")
	assert.Contains(t, err.Error(), setting, "the message names the setting")
	assert.Empty(t, cacheEntries(t, cacheDir), "no entry and no temporary folder is left")
}

// TestHostileServersAreRefusedLeavingNothingCached: shallow lines without
// end, trees nested deeper than git's core.maxTreeDepth and a server that
// keeps sending past the fetch's time are refused with a *LimitError that
// names the server and the setting, and the cache holds nothing after.
func TestHostileServersAreRefusedLeavingNothingCached(t *testing.T) {
	file, blob := hg.FileEntry("100644", "f", "x\n")
	repo := hg.NewRepo([]hg.Entry{file}, blob)
	t.Run("endless shallow lines", func(t *testing.T) {
		line := []byte(hg.Shallow(1, repo.Commit))
		_, err, cacheDir := hostileFetch(t, repo.Commit, hg.Endless(nil, bytes.Repeat(line, 64)))
		requireRefusedLeavingNothing(t, err, cacheDir, MaxShallowLinesEnv)
	})
	t.Run("trees deeper than core.maxTreeDepth", func(t *testing.T) {
		root, objs := hg.DeepTree(DefaultMaxTreeDepth + 1)
		deep := hg.RepoOfTree(root, objs...)
		_, err, cacheDir := hostileFetch(t, deep.Commit, hg.Response(deep.Commit, hg.Pack(deep.Objects...)))
		requireRefusedLeavingNothing(t, err, cacheDir, MaxTreeDepthEnv)
	})
	t.Run("past the fetch's time", func(t *testing.T) {
		t.Setenv(FetchTimeoutEnv, "500ms")
		pack := hg.Pack(repo.Objects...)
		drip := func(w io.Writer) {
			io.WriteString(w, hg.Shallow(1, repo.Commit)+"0000"+hg.PktLine("NAK\n"))
			for _, b := range pack {
				if _, err := w.Write([]byte{b}); err != nil {
					return
				}
				w.(interface{ Flush() }).Flush()
				time.Sleep(100 * time.Millisecond)
			}
		}
		_, err, cacheDir := hostileFetch(t, repo.Commit, drip)
		requireRefusedLeavingNothing(t, err, cacheDir, FetchTimeoutEnv)
	})
}

// TestUpstreamTreePassesGitsPathRules: a .gitmodules symlink (or a name
// Windows reads as .git) in the upstream tree is refused as git refuses
// it, and nothing is cached.
func TestUpstreamTreePassesGitsPathRules(t *testing.T) {
	for name, entry := range map[string]hg.Entry{
		".gitmodules symlink": {Mode: "120000", Name: ".gitmodules", ID: hg.ID("blob", []byte("../outside"))},
		"NTFS alias of .git":  {Mode: "40000", Name: "GIT~1", ID: hg.ID("tree", nil)},
	} {
		t.Run(name, func(t *testing.T) {
			objs := []hg.Object{hg.Honest(hg.Blob, []byte("../outside")), hg.Honest(hg.Tree, nil)}
			repo := hg.NewRepo([]hg.Entry{entry}, objs...)
			_, err, cacheDir := hostileFetch(t, repo.Commit, hg.Response(repo.Commit, hg.Pack(repo.Objects...)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "git refuses it")
			assert.Empty(t, cacheEntries(t, cacheDir))
		})
	}
}

// TestLegacyModeIsCheckedOutAsGitDoes: a file of mode 100664 (old gits
// wrote it) is checked out 644, as git does, and the output is a work
// tree git reads.
func TestLegacyModeIsCheckedOutAsGitDoes(t *testing.T) {
	file, blob := hg.FileEntry("100664", "legacy.txt", "old\n")
	repo := hg.NewRepo([]hg.Entry{file}, blob)
	tree, err, _ := hostileFetch(t, repo.Commit, hg.Response(repo.Commit, hg.Pack(repo.Objects...)))
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	fi, err := os.Stat(filepath.Join(dst, "legacy.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	assert.Equal(t, hg.Hex(repo.Commit), gitfixture.Git(t, dst, "log", "--format=%H"))
	assert.Empty(t, gitfixture.Git(t, dst, "status", "--porcelain"))
}

// TestUnreferencedObjectsAreNotKept: a blob the pinned commit does not
// reference, sent along with it, is in neither the entry's blob store nor
// its pack, the first time or when the entry is reused.
func TestUnreferencedObjectsAreNotKept(t *testing.T) {
	file, blob := hg.FileEntry("100644", "f", "kept\n")
	big := bytes.Repeat([]byte("unreferenced "), 1<<16)
	repo := hg.NewRepo([]hg.Entry{file}, blob, hg.Honest(hg.Blob, big))
	tree, err, cacheDir := hostileFetch(t, repo.Commit, hg.Response(repo.Commit, hg.Pack(repo.Objects...)))
	require.NoError(t, err)
	requireOnlyReferenced(t, tree, hg.Hex(hg.ID("blob", big)), len(big))
	again, err := Fetch(context.Background(), Request{Pin: pin(tree.Origin, "v1", hg.Hex(repo.Commit)), Kind: Git, CacheDir: cacheDir})
	require.NoError(t, err)
	require.True(t, again.Cached)
	requireOnlyReferenced(t, again, hg.Hex(hg.ID("blob", big)), len(big))
}

func requireOnlyReferenced(t *testing.T, tree *Tree, unreferenced string, size int) {
	t.Helper()
	st, err := os.Stat(tree.blobs)
	require.NoError(t, err)
	assert.Less(t, st.Size(), int64(size), "the blob store does not hold the unreferenced blob")
	_, err = gitfixture.TryGit(tree.GitDir, "cat-file", "-e", unreferenced)
	assert.Error(t, err, "the pack does not hold the unreferenced blob")
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	assert.Empty(t, gitfixture.Git(t, dst, "status", "--porcelain"))
	gitfixture.Git(t, dst, "fsck", "--no-dangling")
}

// TestHonestPackIsKeptAsReceived: what an honest server sends for an
// annotated tag (the tag, its commit, trees and blobs) is all referenced,
// so the entry keeps the received pack, tag included, instead of writing
// a pack of its own.
func TestHonestPackIsKeptAsReceived(t *testing.T) {
	f := newFixture(t)
	url := f.repo.HTTPURL(gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir)))
	tree := fetch(t, Request{Pin: pin(url, "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})
	tag := f.repo.RevParse(t, "refs/tags/v1.0.0")
	require.NotEqual(t, f.rel, tag, "the tag is annotated")
	assert.Equal(t, "tag", gitfixture.Git(t, "", "--git-dir", tree.GitDir, "cat-file", "-t", tag), "the received pack, with the tag, is kept")
}

// TestHistoryScanHasTheLimits: a commit pin that a server neither hands
// out by hash nor has at a ref's tip is looked for in the history of the
// branches and tags; that fetch goes through the same receiver, so a delta
// bomb there is refused too, leaving nothing cached.
func TestHistoryScanHasTheLimits(t *testing.T) {
	file, blob := hg.FileEntry("100644", "f", "x\n")
	repo := hg.NewRepo([]hg.Entry{file}, blob)
	const chunk = 0xffff
	base := make([]byte, chunk)
	delta := hg.DeltaOf(chunk, 4<<30/chunk+1, chunk)
	bomb := hg.Pack(append(repo.Objects, hg.Honest(hg.Blob, base), hg.Object{Type: hg.RefDelta, Size: int64(len(delta)), Data: delta, Base: hg.ID("blob", base)})...)
	url := hg.ServeRefsOnly(t, repo.Commit, hg.Response(repo.Commit, bomb))
	cacheDir := t.TempDir()
	below := strings.Repeat("1", 40)
	_, err := Fetch(context.Background(), Request{Pin: pin(url, below, below), Kind: Git, CacheDir: cacheDir})
	requireRefusedLeavingNothing(t, err, cacheDir, MaxObjectEnv)
}
