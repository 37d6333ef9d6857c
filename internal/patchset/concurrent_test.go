package patchset

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestConcurrentApplyIntoOneOut: two re-applies into the same out at once
// (X to Y and X to Z) leave exactly one of the two series, clean, with the
// record and HEAD agreeing; the second sees the first's result.
func TestConcurrentApplyIntoOneOut(t *testing.T) {
	base := baseRepo(t, map[string]string{"a.txt": "start\n", "b.txt": numbered(20, "b")})
	x, y, z := appendSeries(t, base, 1), appendSeries(t, base, 2), appendSeries(t, base, 3)
	r := &recipe.Recipe{Version: "v1", Upstream: recipe.Upstream{Commit: gitfixture.Git(t, base, "rev-parse", "HEAD")}}
	opt := Options{Branch: "epp-build/v1"}
	heads := map[string]string{}
	for name, s := range map[string][]*Patch{"y": y, "z": z} {
		o, err := applyPatches(context.Background(), r, s, cloneBase(t, base), filepath.Join(t.TempDir(), name), opt)
		require.NoError(t, err)
		heads[o.Record.Head] = name
	}
	out := filepath.Join(t.TempDir(), "out")
	for round := range 8 {
		_, err := applyPatches(context.Background(), r, x, cloneBase(t, base), out, opt)
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, s := range [][]*Patch{y, z} {
			wg.Go(func() {
				_, errs[i] = applyPatches(context.Background(), r, s, cloneBase(t, base), out, opt)
			})
		}
		wg.Wait()
		require.NoError(t, errs[0], "round %d", round)
		require.NoError(t, errs[1], "round %d", round)
		rec, err := ReadRecord(out)
		require.NoError(t, err)
		assert.Contains(t, heads, rec.Head, "round %d: the record is one of the two series", round)
		assert.Equal(t, rec.Head, gitfixture.Git(t, out, "rev-parse", "HEAD"), "round %d", round)
		assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all", "--ignored"), "round %d", round)
		gitfixture.Git(t, out, "fsck", "--strict")
	}
}
