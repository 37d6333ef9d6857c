package typecheck

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
)

// patchesRoot is the repository's patches/ folder.
var patchesRoot = filepath.Join("..", "..", "patches")

// Every shipped line builds patch by patch, not only at its end: no patch
// imports a package the series adds only in a later patch (issue 38: v1.4.2's
// 0001 once carried a test importing dynamo/booking, which 0002 adds, so any
// `rebase --exec 'go vet ./...'` stopped at 0001). This reads the patches
// alone; TestEveryLineTypeChecksPatchByPatch (integration) checks each
// patch's imports against the upstream tree and type-checks the end.
func TestShippedSeriesImportNothingBeforeItIsAdded(t *testing.T) {
	versions, err := recipe.Versions(patchesRoot)
	require.NoError(t, err)
	require.NotEmpty(t, versions)
	for _, v := range versions {
		r, err := recipe.LoadVersion(patchesRoot, v)
		require.NoError(t, err, v)
		if r.Upstream.Module == "" {
			continue
		}
		var ps []*patchset.Patch
		for _, sp := range r.Series {
			got, err := patchset.ParseFile(sp.Path, sp.Name)
			require.NoError(t, err, "%s: %s", v, sp.Name)
			ps = append(ps, got...)
		}
		for _, m := range SeriesImports(r.Upstream.Module, ps) {
			assert.Fail(t, "a patch does not compile on its own", "%s: %s", v, m.Error())
		}
	}
}
