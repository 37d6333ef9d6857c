package source

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestCancelMidGitFetch cancels while the server is answering the fetch:
// Fetch returns the context error and leaves no entry, finished or not.
func TestCancelMidGitFetch(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := gitfixture.Handler(t, filepath.Dir(f.repo.Dir))
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			cancel()
			select { // hold the fetch until the client gives up or the test ends
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer close(release)
	cache := t.TempDir()
	err := testutil.Returns(t, "a cancelled git fetch", func() error {
		_, err := Fetch(ctx, Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v1.0.0", f.rel), Kind: Git, CacheDir: cache})
		return err
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, cacheEntries(t, cache))
}

// TestCancelMidModuleDownload cancels while the zip is being served.
func TestCancelMidModuleDownload(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, ".zip") {
			w.Write(proxy.zip[:len(proxy.zip)/2])
			w.(http.Flusher).Flush()
			cancel()
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return false
		}
		return true
	}
	t.Setenv("GOPROXY", proxy.URL)
	cache := t.TempDir()
	err := testutil.Returns(t, "a cancelled module download", func() error {
		_, err := Fetch(ctx, Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: cache})
		return err
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, cacheEntries(t, cache))
}

// TestCancelledMaterializeLeavesNoDst: a cancelled Materialize removes what
// it wrote and does not mark the entry corrupt.
func TestCancelledMaterializeLeavesNoDst(t *testing.T) {
	f := newFixture(t)
	req := Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()}
	tree := fetch(t, req)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dst := filepath.Join(t.TempDir(), "work")
	err := tree.Materialize(ctx, dst)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, ErrCorrupt))
	assert.NoDirExists(t, dst)
	_, statErr := os.Stat(filepath.Join(filepath.Dir(tree.GitDir), corruptMark))
	assert.True(t, os.IsNotExist(statErr))
	var notes noticeLog
	req.Notice = notes.notice
	fetch(t, req)
	assert.Empty(t, notes.all())
}

// TestStaleTempEntryRemoved: a half-built entry left by a killed process is
// cleaned up by the next Fetch of the same key.
func TestStaleTempEntryRemoved(t *testing.T) {
	f := newFixture(t)
	cache := t.TempDir()
	stale := filepath.Join(cache, "upstream", tmpPrefix+"git-"+f.rel+"-12345")
	require.NoError(t, os.MkdirAll(filepath.Join(stale, "files"), 0o755))
	fetch(t, Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: cache})
	assert.Equal(t, []string{"git-" + f.rel}, cacheEntries(t, cache))
}

// TestCancelMidFill cancels while the fetched tree's files are being
// written into the new entry: Fetch returns the context error, no entry
// (finished or half-filled) is left to be used, and the next Fetch fills
// a complete one that materializes the commit exactly.
func TestCancelMidFill(t *testing.T) {
	f := newFixture(t)
	cache := t.TempDir()
	req := Request{Pin: pin(f.repo.FileURL(), "v1.0.0", f.rel), Kind: Git, CacheDir: cache}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var written atomic.Int64
	fileWritten = func(string) { written.Add(1); cancel() }
	defer func() { fileWritten = nil }()
	_, err := Fetch(ctx, req)
	fileWritten = nil
	require.ErrorIs(t, err, context.Canceled)
	require.Positive(t, written.Load(), "the fill had begun")
	assert.Empty(t, cacheEntries(t, cache))
	leftovers, _ := filepath.Glob(filepath.Join(cache, "upstream", tmpPrefix+"*"))
	assert.Empty(t, leftovers)

	tree := fetch(t, req)
	require.False(t, tree.Cached)
	before := hashedFiles.Load()
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	assert.Zero(t, hashedFiles.Load()-before)
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
}
