package source

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
