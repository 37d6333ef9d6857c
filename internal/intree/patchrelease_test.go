//go:build e2e

package intree

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

// patchReleases maps each patch-release recipe that reproduces its line's
// first release with the same series to that release. Dynamo built its EPP
// from identical sources in both (docs/compat/v0.7.1.md, v0.8.1.md), so the
// patched tree is byte for byte the same and only the C API pin moves; the
// tree is built once, under the base version in releases, and these
// versions get no entry there of their own.
var patchReleases = map[string]string{
	"v0.7.1": "v0.7.0",
	"v0.8.1": "v0.8.0",
}

// TestPatchReleasesBuildTheTreeOfTheirLine checks that a patch release
// without an entry in releases really has nothing of its own to build: the
// same upstream pin, the same patch files in the same order, the same
// generated packages and the same C API binding; otherwise it needs an
// entry in releases.
func TestPatchReleasesBuildTheTreeOfTheirLine(t *testing.T) {
	root := filepath.Join("..", "..", "patches")
	built := map[string]bool{}
	for _, rel := range releases {
		built[rel.version] = true
	}
	for version, base := range patchReleases {
		t.Run(version, func(t *testing.T) {
			require.True(t, built[base], "%s is not built in releases", base)
			assert.False(t, built[version], "%s builds the tree of %s: drop it from patchReleases or from releases", version, base)

			r, err := recipe.LoadVersion(root, version)
			require.NoError(t, err)
			b, err := recipe.LoadVersion(root, base)
			require.NoError(t, err)

			assert.Equal(t, base, r.Extends)
			assert.Empty(t, r.Patches, "a patch of its own changes the tree: give %s an entry in releases", version)
			assert.Equal(t, b.Upstream, r.Upstream)
			assert.Equal(t, b.Series, r.Series)
			assert.Equal(t, b.Generated, r.Generated)

			// The binding is the base's; only the library it links moves.
			require.NotNil(t, r.CAPI)
			require.NotNil(t, b.CAPI)
			assert.Equal(t, b.CAPI.Repository, r.CAPI.Repository)
			assert.Equal(t, b.CAPI.Dir, r.CAPI.Dir)
			assert.Equal(t, b.CAPI.Crate, r.CAPI.Crate)
			assert.Equal(t, b.CAPI.Library, r.CAPI.Library)
			assert.Equal(t, b.CAPI.Generation, r.CAPI.Generation)
			assert.Empty(t, r.CAPI.Patches)
			assert.Equal(t, version, r.CAPI.Ref, "the C API is pinned at the patch release's tag")
			require.NotNil(t, r.Reproduces)
			assert.Equal(t, r.Reproduces.Commit, r.CAPI.Commit, "the C API commit is the release's tag commit")
		})
	}
}
