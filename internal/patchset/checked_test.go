package patchset

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

// applyPatches is ApplyTo of patches parsed by a test: loaded as a series
// first, so a hostile one is refused as ApplyTo refused it when it took
// any patches.
func applyPatches(ctx context.Context, r *recipe.Recipe, patches []*Patch, fetch func(context.Context) (Base, error), out string, opt Options) (*Outcome, error) {
	s, err := NewSeries(patches)
	if err != nil {
		return nil, err
	}
	return ApplyTo(ctx, r, s, fetch, out, opt)
}

// applyPatchesToRepo is ApplyToRepo of patches parsed by a test.
func applyPatchesToRepo(ctx context.Context, dir string, patches []*Patch, opt Options) (*Result, error) {
	s, err := NewSeries(patches)
	if err != nil {
		return nil, err
	}
	return ApplyToRepo(ctx, dir, s, opt)
}

const hostilePatch = `From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A <a@example.com>
Date: Mon, 1 Jan 2024 00:00:00 +0000
Subject: [PATCH] hook

---
diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout
new file mode 100755
--- /dev/null
+++ b/.git/hooks/post-checkout
@@ -0,0 +1 @@
+echo owned
`

// A series is made only by loading, which checks: a recipe whose patch
// writes into .git is refused when loaded, as are the same patches
// parsed elsewhere, so no apply ever sees them.
func TestOnlyACheckedSeriesIsMade(t *testing.T) {
	ps, err := Parse("0001-hook.patch", []byte(hostilePatch))
	require.NoError(t, err)
	_, err = NewSeries(ps)
	var unsafe *UnsafeError
	require.ErrorAs(t, err, &unsafe)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0001-hook.patch"), []byte(hostilePatch), 0o644))
	r := &recipe.Recipe{Version: "v1", Dir: dir, Series: []recipe.SeriesPatch{{Name: "0001-hook.patch", Path: filepath.Join(dir, "0001-hook.patch"), Version: "v1"}}}
	_, err = LoadSeries(r)
	require.ErrorAs(t, err, &unsafe)

	var none *Series
	assert.Zero(t, none.Len())
	assert.Empty(t, none.Patches())
}
