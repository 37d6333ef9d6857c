package backport

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

// A stopped pick that created its version says --abort removes that
// version too; a pick in the default work tree is found by the patches
// folder alone.
func TestPickInProgressNamesTheStopAndTheVersionItCreated(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:1])
	repo := fixOnV2(t, p)
	found, err := FindPick(root)
	require.NoError(t, err)
	assert.Nil(t, found)

	req := pickRequest(t, root, repo, "", "HEAD")
	req.Version, req.Extends = "v9.1", "v9"
	req.Load = func() (*recipe.Recipe, error) { return recipe.LoadVersion(root, "v9.1") }
	_, err = PickInto(context.Background(), req)
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)

	found, err = FindPick(root)
	require.NoError(t, err)
	require.NotNil(t, found)
	assert.Equal(t, stop.Dir, found.Dir)
	s, err := PickInProgress(found)
	require.NoError(t, err)
	assert.Equal(t, "v9.1", s.Version)
	assert.Equal(t, stop.Patch, s.StoppedAt)
	assert.Equal(t, "Fix b again", s.Title)
	assert.Equal(t, []string{"b.txt"}, s.Marked)
	assert.Equal(t, filepath.Join(root, "v9.1"), s.Created)
	assert.Equal(t, "epp-build pick --abort --dir "+stop.Dir+"  # throw the pick away, with the version folder it created", s.Next[len(s.Next)-1])

	// A damaged state is refused, not shown as something it is not.
	require.NoError(t, os.WriteFile(filepath.Join(stop.Dir, ".git", pickStateFile), []byte(`{"root":"`+root+`","version":"../x"}`), 0o644))
	_, err = PickInProgress(found)
	assert.ErrorContains(t, err, "damaged")
}
