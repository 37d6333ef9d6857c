package backport

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

// A finished rebase's default work tree is a whole upstream checkout in
// the cache: it goes once the series is written, unless --keep; a --dir
// is the user's and stays.
func TestAFinishedRebaseRemovesItsDefaultWorkTreeUnlessKept(t *testing.T) {
	for name, tc := range map[string]struct {
		keep, ownDir bool
		removed      bool
	}{
		"default":           {removed: true},
		"default with keep": {keep: true},
		"--dir":             {ownDir: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			p := newPins(t)
			root := t.TempDir()
			r := writeSeries(t, p, root, "v9", []edit{{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"}})
			req := RebaseRequest{Root: root, Onto: Onto{Ref: "v2", Commit: p.v2}, As: "v10", Keep: tc.keep,
				Load: func() (*recipe.Recipe, error) { return r, nil }, Materialize: checkout(t), Log: &strings.Builder{}}
			if tc.ownDir {
				req.Dir = filepath.Join(t.TempDir(), "rebase")
			}
			res, err := Rebase(context.Background(), req)
			require.NoError(t, err)
			require.True(t, res.Finished)
			assert.Equal(t, tc.removed, res.Removed)
			if tc.removed {
				assert.NoDirExists(t, res.Dir)
			} else {
				assert.FileExists(t, filepath.Join(res.Dir, "d.txt"))
			}
			def, err := DefaultDir(root)
			require.NoError(t, err)
			assert.Equal(t, !tc.ownDir, res.Dir == def)
			_, err = recipe.Load(filepath.Join(root, "v10"))
			assert.NoError(t, err, "the series is written either way")
		})
	}
}
