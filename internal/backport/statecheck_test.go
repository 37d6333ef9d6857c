package backport

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

var aCommit = strings.Repeat("ab", 20)

// writeState puts st as the rebase state of the work tree dir.
func writeState(t *testing.T, dir string, st any) string {
	t.Helper()
	path := filepath.Join(dir, ".git", stateFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	data, err := json.Marshal(st)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func stoppedState(recipeDir string) *state {
	return &state{
		Version: "v9", Recipe: recipeDir,
		Upstream: recipe.Upstream{Repository: "https://example.com/gaie.git", Ref: "v2", Commit: aCommit},
		Patches:  []string{"0001-a.patch"}, Conflict: "0001-a.patch", StopHead: aCommit,
	}
}

// A user's folder with files in it, which no state may make a command
// remove or write to.
func usersFolder(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "Documents")
	files := map[string]string{"notes.txt": "mine", "0001-keep.patch": "mine too"}
	for name, data := range files {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	return dir, files
}

func assertUntouched(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, "%s was removed", name)
		assert.Equal(t, data, string(got))
	}
}

// TestARebaseStateNamingAnotherRecipeFolderIsRefused: a state whose
// recipe is not <--patches>/<version> is refused (exit 4 through
// *StateError) by --continue, --skip and --abort, and neither that folder
// nor the work tree is touched.
func TestARebaseStateNamingAnotherRecipeFolderIsRefused(t *testing.T) {
	root := t.TempDir()
	elsewhere, files := usersFolder(t)
	for _, req := range []RebaseRequest{{Continue: true}, {Skip: true}, {Abort: true}} {
		work := filepath.Join(t.TempDir(), "rebase")
		st := stoppedState(elsewhere)
		st.Version = "Documents"
		writeState(t, work, st)
		req.Root, req.Dir = root, work
		_, err := Rebase(context.Background(), req)
		var refused *StateError
		require.ErrorAs(t, err, &refused)
		assert.ErrorContains(t, err, "is not "+filepath.Join(root, "Documents"))
		assertUntouched(t, elsewhere, files)
		assert.FileExists(t, filepath.Join(work, ".git", stateFile), "a refused --abort keeps the work tree")
	}

	// The same rebase, in the patches folder it names, goes on.
	work := filepath.Join(t.TempDir(), "rebase")
	writeState(t, work, stoppedState(filepath.Join(root, "v9")))
	_, err := Rebase(context.Background(), RebaseRequest{Root: root, Dir: work, Abort: true})
	require.NoError(t, err)
	assert.NoDirExists(t, work)
}

// TestARebaseStateThatNoRebaseWritesIsRefused: a version that is no
// folder name (terminal controls in it), a pin that reads as a git option
// and an --exec command added or changed by hand are refused.
func TestARebaseStateThatNoRebaseWritesIsRefused(t *testing.T) {
	dir := t.TempDir()
	sealed := &Exec{Command: "go build ./..."}
	require.NoError(t, sealed.seal())
	for name, tc := range map[string]struct {
		edit func(*state)
		says string
	}{
		"version with controls": {func(st *state) { st.Version = "v9\x1b]0;owned\a" }, `"v9\x1b]0;owned\a"`},
		"upload-pack":           {func(st *state) { st.Upstream.Repository = "--upload-pack=touch /tmp/owned" }, "upstream.repository"},
		"ext transport":         {func(st *state) { st.Upstream.Repository = "ext::sh -c touch% /tmp/owned" }, "upstream.repository"},
		"short commit":          {func(st *state) { st.Upstream.Commit = "abc" }, "upstream.commit"},
		"exec by hand":          {func(st *state) { st.Exec = &Exec{Command: "touch /tmp/owned"} }, "not the one this rebase was started with"},
		"exec changed": {func(st *state) {
			x := *sealed
			x.Command = "touch /tmp/owned"
			st.Exec = &x
		}, "not the one this rebase was started with"},
		"exec moved to the end": {func(st *state) {
			x := *sealed
			x.AtEnd = true
			st.Exec = &x
		}, "not the one this rebase was started with"},
	} {
		st := stoppedState("/patches/v9")
		tc.edit(st)
		writeState(t, dir, st)
		_, err := load(dir)
		var refused *StateError
		require.ErrorAs(t, err, &refused, name)
		assert.ErrorContains(t, err, tc.says, name)
	}

	// The command as the rebase started with it loads.
	st := stoppedState("/patches/v9")
	st.Exec = sealed
	writeState(t, dir, st)
	got, err := load(dir)
	require.NoError(t, err)
	assert.Equal(t, "go build ./...", got.Exec.Command)
}

// TestAPickStateNamingAFolderOutsideThePatchesFolderIsRefused: a pick
// state whose root, version and created name a user's folder made
// --abort remove that folder: it is refused now, and the folder stays.
func TestAPickStateNamingAFolderOutsideThePatchesFolderIsRefused(t *testing.T) {
	root := t.TempDir()
	victim, files := usersFolder(t)
	work := filepath.Join(t.TempDir(), "pick")
	require.NoError(t, os.MkdirAll(filepath.Join(work, ".git", "epp-build"), 0o755))
	data, err := json.Marshal(pickState{Root: filepath.Dir(victim), Version: "Documents", Created: victim})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, ".git", pickStateFile), data, 0o644))
	_, err = PickInto(context.Background(), PickRequest{Root: root, Dir: work, Abort: true})
	var refused *StateError
	require.ErrorAs(t, err, &refused)
	assertUntouched(t, victim, files)
	assert.DirExists(t, work)

	// In the patches folder itself, a created folder that holds no recipe
	// is not a version the pick made: --abort leaves it.
	inRoot := filepath.Join(root, "docs")
	require.NoError(t, os.MkdirAll(inRoot, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(inRoot, "notes.txt"), []byte("mine"), 0o644))
	data, err = json.Marshal(pickState{Root: root, Version: "docs", Created: inRoot})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, ".git", pickStateFile), data, 0o644))
	res, err := PickInto(context.Background(), PickRequest{Root: root, Dir: work, Abort: true})
	require.NoError(t, err)
	assert.True(t, res.Aborted)
	assert.FileExists(t, filepath.Join(inRoot, "notes.txt"))
	assert.NoDirExists(t, work)
}

// TestOneCommandAtATimeRunsARebaseOrPick: while one epp-build holds a
// patches folder's rebase (or pick), another is refused at once, naming
// it, and changes nothing: two --continue at once, or a --continue and an
// --abort, left the rebase unfinishable.
func TestOneCommandAtATimeRunsARebaseOrPick(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(t.TempDir(), "rebase")
	path := writeState(t, work, stoppedState(filepath.Join(root, "v9")))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	d, err := DefaultDir(root)
	require.NoError(t, err)
	unlock, err := lockOp(d, "rebase", "continuing")
	require.NoError(t, err)
	_, err = Rebase(context.Background(), RebaseRequest{Root: root, Dir: work, Abort: true})
	var busy *BusyError
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, os.Getpid(), busy.PID)
	assert.Contains(t, err.Error(), "is continuing this rebase")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the refused --abort left the state alone")

	pd, err := PickDir(root)
	require.NoError(t, err)
	unlockPick, err := lockOp(pd, "pick", "aborting")
	require.NoError(t, err)
	_, err = PickInto(context.Background(), PickRequest{Root: root, Continue: true})
	require.ErrorAs(t, err, &busy)
	assert.Contains(t, err.Error(), "is aborting this pick")
	unlockPick()

	unlock()
	_, err = Rebase(context.Background(), RebaseRequest{Root: root, Dir: work, Abort: true})
	require.NoError(t, err, "once the other run ends, the next goes on")
	assert.NoDirExists(t, work)
}

// TestTheFolderANoteNamesIsEscapedInTheMessage: the note naming a
// --dir rebase is a file in the cache; its folder is shown escaped.
func TestTheFolderANoteNamesIsEscapedInTheMessage(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(t.TempDir(), "rb\x1b]0;owned\a")
	writeState(t, work, stoppedState(filepath.Join(root, "v9")))
	d, err := DefaultDir(root)
	require.NoError(t, err)
	require.NoError(t, recordActive(d, work))
	var log strings.Builder
	res, err := Rebase(context.Background(), RebaseRequest{Root: root, Abort: true, Log: &log})
	require.NoError(t, err)
	assert.True(t, res.Aborted)
	assert.NotContains(t, log.String(), "\x1b")
	assert.Contains(t, log.String(), `rb\x1b]0;owned\x07`)
}
