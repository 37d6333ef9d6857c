package source

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestHistoryAnswersAncestryAndTouchedFiles reads a fixture's history
// over HTTP: ancestry of its commits, the commits between two that touch
// a file, and a second open that needs no fetch.
func TestHistoryAnswersAncestryAndTouchedFiles(t *testing.T) {
	testenv.Tool(t, "git", "git http-backend serves the fixture")
	f := newFixture(t)
	mid := f.repo.Commit(t, "touch only pkg", map[string]string{"pkg/a/a.go": "package a // touched\n"})
	top := f.repo.Commit(t, "touch the readme", map[string]string{"README.md": "hello again\n"})
	f.repo.Tag(t, "v1.1.0", top, true)
	srv := httptest.NewServer(gitfixture.Handler(t, filepath.Dir(f.repo.Dir)))
	defer srv.Close()
	url := f.repo.HTTPURL(srv.URL)
	cache := t.TempDir()
	ctx := context.Background()

	h, err := OpenHistory(ctx, cache, url, top)
	require.NoError(t, err)
	for _, c := range []struct {
		commit string
		want   bool
	}{{f.old, true}, {f.rel, true}, {mid, true}, {top, true}} {
		got, err := h.IsAncestor(ctx, c.commit, top)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, c.commit)
	}
	got, err := h.IsAncestor(ctx, top, f.rel)
	require.NoError(t, err)
	assert.False(t, got, "a later commit is no ancestor")
	got, err = h.IsAncestor(ctx, "0123456789abcdef0123456789abcdef01234567", top)
	require.NoError(t, err)
	assert.False(t, got, "an unknown commit is no ancestor")

	commits, err := h.Between(ctx, f.rel, top, []string{"README.md"})
	require.NoError(t, err)
	assert.Equal(t, []Commit{{Hash: top, Subject: "touch the readme"}}, commits)
	commits, err = h.Between(ctx, f.rel, top, nil)
	require.NoError(t, err)
	assert.Len(t, commits, 2)

	// The history is cached: with the server gone, it still answers.
	srv.Close()
	h, err = OpenHistory(ctx, cache, url, f.rel, top)
	require.NoError(t, err)
	got, err = h.IsAncestor(ctx, f.rel, top)
	require.NoError(t, err)
	assert.True(t, got)
	_, err = OpenHistory(ctx, cache, url, "0123456789abcdef0123456789abcdef01234567")
	assert.ErrorContains(t, err, "fetch the history of "+url+" up to 0123456789ab")
}
