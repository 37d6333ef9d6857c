package source

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestSSHTakesTheStreamedPath: over ssh a tag, a commit pin by hash and
// the upstream history come through the same upload-pack client as over
// http, under the same limits: a pack over one is refused naming the
// server, and nothing is kept.
func TestSSHTakesTheStreamedPath(t *testing.T) {
	f := newFixture(t)
	f.repo.AllowFetchBySHA(t)
	url := f.repo.SSHURL(gitfixture.ServeSSH(t, filepath.Dir(f.repo.Dir)))

	for _, ref := range []string{"v1.0.0", f.rel} {
		requireFetchedTree(t, f, url, ref)
	}
	h, err := OpenHistory(context.Background(), t.TempDir(), url, f.rel)
	require.NoError(t, err)
	defer h.Close()
	in, err := h.IsAncestor(context.Background(), f.old, f.rel)
	require.NoError(t, err)
	assert.True(t, in)

	t.Setenv(MaxPackObjectsEnv, "2")
	cache := t.TempDir()
	_, err = Fetch(context.Background(), Request{Pin: pin(url, "v1.0.0", f.rel), Kind: Git, CacheDir: cache})
	var limit *LimitError
	require.True(t, errors.As(err, &limit), "%v", err)
	assert.Equal(t, url, limit.Server)
	assert.Equal(t, MaxPackObjectsEnv, limit.Setting)
	assert.Empty(t, cacheEntries(t, cache))
}
