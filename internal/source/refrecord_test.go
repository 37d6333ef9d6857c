package source

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestMovedTagWithACachedPinIsRefused: once a fetch has seen the recipe's
// tag point at another commit, the cached copy of the pinned commit is not
// used: the run is refused as a mismatch naming the tag and both commits.
// The server is asked once before refusing, so a tag moved back is
// accepted again; when it cannot be asked, the record decides.
func TestMovedTagWithACachedPinIsRefused(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(gitfixture.Handler(t, filepath.Dir(f.repo.Dir)))
	defer srv.Close()
	url := f.repo.HTTPURL(srv.URL)
	cache := t.TempDir()
	fetchPin := func(commit string) (*Tree, error) {
		return Fetch(context.Background(), Request{Pin: pin(url, "v0.9.0", commit), Kind: Git, CacheDir: cache})
	}
	_, err := fetchPin(f.old)
	require.NoError(t, err)

	// The tag moves; a recipe pinning its new commit fetches it.
	f.repo.MoveTag(t, "v0.9.0", f.rel, true)
	_, err = fetchPin(f.rel)
	require.NoError(t, err)

	_, err = fetchPin(f.old)
	var mm *MismatchError
	require.ErrorAs(t, err, &mm, "the cached pin of a moved tag must not be used")
	assert.Equal(t, "v0.9.0", mm.Ref)
	assert.Equal(t, f.old, mm.Want)
	assert.Equal(t, f.rel, mm.Got)
	assert.Contains(t, err.Error(), "the pinned commit is cached, but the tag no longer points at it")
	assert.Contains(t, err.Error(), "fix upstream.ref or upstream.commit")

	// Moved back: the pin is good again, from the cache.
	f.repo.MoveTag(t, "v0.9.0", f.old, true)
	tree, err := fetchPin(f.old)
	require.NoError(t, err)
	assert.True(t, tree.Cached)

	// Moved again and seen, then the server is gone: the record decides.
	f.repo.MoveTag(t, "v0.9.0", f.rel, true)
	_, err = fetchPin(f.rel)
	require.NoError(t, err)
	srv.Close()
	_, err = fetchPin(f.old)
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, f.rel, mm.Got)
	assert.Contains(t, err.Error(), "the server could not be asked now")
}

// TestMovedTagWithACachedPinAndNoOtherFetchIsRefused: the tag moves after
// its commit was cached and no fetch sees it move; the warm run asks the
// server once where the tag points and refuses the cached pin.
func TestMovedTagWithACachedPinAndNoOtherFetchIsRefused(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(gitfixture.Handler(t, filepath.Dir(f.repo.Dir)))
	defer srv.Close()
	req := Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v0.9.0", f.old), Kind: Git, CacheDir: t.TempDir()}
	_, err := Fetch(context.Background(), req)
	require.NoError(t, err)

	f.repo.MoveTag(t, "v0.9.0", f.rel, true)
	_, err = Fetch(context.Background(), req)
	var mm *MismatchError
	require.ErrorAs(t, err, &mm, "a warm run must ask where the tag points")
	assert.Equal(t, f.old, mm.Want)
	assert.Equal(t, f.rel, mm.Got)
	assert.Contains(t, err.Error(), "the tag no longer points at it")

	// The answer is recorded: with the server gone the record refuses.
	srv.Close()
	_, err = Fetch(context.Background(), req)
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, f.rel, mm.Got)
}

// TestWarmTagPinWithTheServerGoneIsUsedWithANotice: a warm run that
// cannot ask the server where the tag points (offline, or a server that
// never answers) uses the cached copy and says, in one notice, that the
// tag could not be confirmed; it never fails for being offline.
func TestWarmTagPinWithTheServerGoneIsUsedWithANotice(t *testing.T) {
	for _, gone := range []string{"closed", "never answers"} {
		t.Run(gone, func(t *testing.T) {
			f := newFixture(t)
			var stall atomic.Bool
			release := make(chan struct{})
			git := gitfixture.Handler(t, filepath.Dir(f.repo.Dir))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if stall.Load() {
					<-release
					return
				}
				git.ServeHTTP(w, r)
			}))
			defer srv.Close()
			defer close(release) // before Close, which waits for the handlers
			var notices []string
			req := Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v0.9.0", f.old), Kind: Git, CacheDir: t.TempDir(),
				Notice: func(format string, args ...any) { notices = append(notices, fmt.Sprintf(format, args...)) }}
			_, err := Fetch(context.Background(), req)
			require.NoError(t, err)
			require.Empty(t, notices)

			if gone == "closed" {
				srv.Close()
			} else {
				stall.Store(true)
				defer func(d time.Duration) { tagConfirmTimeout = d }(tagConfirmTimeout)
				tagConfirmTimeout = 200 * time.Millisecond
			}
			var tree *Tree
			err = testutil.Returns(t, "a warm fetch with the server gone", func() (err error) {
				tree, err = Fetch(context.Background(), req)
				return err
			})
			require.NoError(t, err, "a warm run must not fail offline")
			assert.True(t, tree.Cached)
			require.Len(t, notices, 1)
			assert.Contains(t, notices[0], "could not confirm that tag v0.9.0")
			assert.Contains(t, notices[0], "using the cached copy")
			assert.NotContains(t, notices[0], "\n")
		})
	}
}

// TestWarmCommitPinAsksNothing: a pin by commit hash cannot move, so a
// warm run makes no request at all.
func TestWarmCommitPinAsksNothing(t *testing.T) {
	f := newFixture(t)
	var requests atomic.Int64
	git := gitfixture.Handler(t, filepath.Dir(f.repo.Dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		git.ServeHTTP(w, r)
	}))
	defer srv.Close()
	req := Request{Pin: pin(f.repo.HTTPURL(srv.URL), "v0.9.0", f.old), Kind: Git, CacheDir: t.TempDir()}
	_, err := Fetch(context.Background(), req)
	require.NoError(t, err)

	before := requests.Load()
	tree, err := Fetch(context.Background(), req)
	require.NoError(t, err)
	require.True(t, tree.Cached)
	assert.Equal(t, before+1, requests.Load(), "a warm tag pin asks the server once")

	req.Pin.Ref = f.old
	before = requests.Load()
	tree, err = Fetch(context.Background(), req)
	require.NoError(t, err)
	require.True(t, tree.Cached)
	assert.Equal(t, before, requests.Load(), "a warm commit pin asks nothing")
}
