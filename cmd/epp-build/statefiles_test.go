package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestATamperedStateFileIsRefusedWithExit4: a rebase state whose recipe
// folder is a user's folder outside --patches is refused input (exit 4),
// escaped in the message, and --abort removes neither that folder nor the
// work tree.
func TestATamperedStateFileIsRefusedWithExit4(t *testing.T) {
	cache := t.TempDir()
	patches := t.TempDir()
	victim := filepath.Join(t.TempDir(), "Documents")
	require.NoError(t, os.MkdirAll(victim, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(victim, "0001-mine.patch"), []byte("mine"), 0o644))
	work := filepath.Join(t.TempDir(), "rebase")
	state := filepath.Join(work, ".git", "epp-build", "rebase.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(state), 0o755))
	data, err := json.Marshal(map[string]any{
		"version": "Documents", "recipe": victim,
		"upstream": map[string]string{"repository": "https://example.com/gaie.git", "ref": "v2\x1b]0;x\a", "commit": strings.Repeat("ab", 20)},
		"patches":  []string{"0001-a.patch"}, "next": 0,
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(state, data, 0o644))
	for _, op := range []string{"--continue", "--abort"} {
		r := run(t, cache, "--patches", patches, "rebase", op, "--dir", work)
		assert.Equal(t, 4, r.code, op+": "+r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "nothing it names was touched")
		assert.NotContains(t, r.stderr, "\x1b")
		assert.FileExists(t, filepath.Join(victim, "0001-mine.patch"))
		assert.FileExists(t, state)
	}
}

// TestAnEmptyDirLeftByAKilledStartDoesNotBlockARebase: a start killed
// before it wrote anything leaves an empty --dir; the next start uses it.
func TestAnEmptyDirLeftByAKilledStartDoesNotBlockARebase(t *testing.T) {
	u := newTwoPins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"}})
	work := filepath.Join(t.TempDir(), "rebase")
	require.NoError(t, os.Mkdir(work, 0o755))
	r := run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.FileExists(t, filepath.Join(patches, "v10", "recipe.yaml"))

	// A --dir with anything in it is still the user's.
	other := filepath.Join(t.TempDir(), "mine")
	require.NoError(t, os.MkdirAll(other, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "keep"), []byte("x"), 0o644))
	r = run(t, cache, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v11", "--dir", other)
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.FileExists(t, filepath.Join(other, "keep"))
}
