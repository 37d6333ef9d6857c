package source

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

func TestResolveTakesAShortCommitHash(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	base := gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir))
	remote := f.repo.HTTPURL(base)

	// The release is a tag's commit: its short hash resolves anywhere.
	for _, repo := range []string{remote, f.repo.FileURL(), f.repo.Dir} {
		got, err := Resolve(ctx, repo, f.rel[:7])
		require.NoError(t, err, repo)
		assert.Equal(t, f.rel, got, repo)
	}

	// An older commit that no tip names resolves from a local history only.
	middle := f.repo.Commit(t, "middle", map[string]string{"mid.txt": "m\n"})
	f.repo.Commit(t, "tip", map[string]string{"tip.txt": "t\n"})
	got, err := Resolve(ctx, f.repo.Dir, middle[:8])
	require.NoError(t, err)
	assert.Equal(t, middle, got)
	_, err = Resolve(ctx, remote, middle[:8])
	assert.ErrorContains(t, err, "give the full 40-digit commit")

	_, err = Resolve(ctx, f.repo.Dir, "0000000")
	assert.ErrorContains(t, err, "no tag or branch \"0000000\"")
}
