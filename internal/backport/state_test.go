package backport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStateSurvivesSaveAndLoad(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git", "epp-build"), 0o755))
	commit := strings.Repeat("ab", 20)
	want := &state{
		Version: "v9", As: "v10", Recipe: "/patches/v9",
		Upstream: recipe.Upstream{Repository: "https://example.com/gaie.git", Ref: "v2", Commit: commit},
		Patches:  []string{"0001-a.patch", "0002-b.patch", "0003-c.patch"},
		Next:     2,
		Steps: []Step{
			{Patch: "0001-a.patch", Outcome: AtOffset, Offsets: []patchset.Offset{{File: "a.txt", Hunk: "1", Lines: 3}}, Commit: commit},
			{Patch: "0002-b.patch", Outcome: Skipped},
		},
		Conflict: "0003-c.patch", StopHead: commit, Marked: []string{"c.txt", "sub/new.txt.rej"},
	}
	require.NoError(t, save(dir, want))
	got, err := load(dir)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.NoFileExists(t, filepath.Join(dir, ".git", stateFile+".tmp"), "the state is renamed into place")

	path := filepath.Join(dir, ".git", stateFile)
	require.NoError(t, os.WriteFile(path, []byte(`{"version":"v9","recipe":"/patches/v9","patches":["0001-a.patch"],"next":2}`), 0o644))
	_, err = load(dir)
	assert.ErrorContains(t, err, "next patch 2 is outside the series of 1")
	assert.ErrorContains(t, err, "--abort and start again")

	require.NoError(t, os.Remove(path))
	_, err = load(dir)
	assert.ErrorContains(t, err, "no rebase in progress in "+dir)
}
