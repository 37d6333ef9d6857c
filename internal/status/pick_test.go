package status

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// stopPick picks into v1 a change to the line v1's series changes: the
// pick stops at a conflict in its work tree dir ("" = the default one).
func stopPick(t *testing.T, f *fixture, dir string) *backport.ConflictStop {
	t.Helper()
	pick := f.patchOnBase(t, map[string]string{"a.txt": strings.Replace(gitfixture.NumberedLines("a", 10), "a 1 line\n", "a = pick\n", 1)}, "Fix a", t.TempDir())
	_, err := backport.PickInto(t.Context(), backport.PickRequest{
		Root: f.root, Version: "v1", Sources: []string{pick}, Dir: dir,
		Options: backport.PickOptions{Upstream: "https://example.com/pull/1", Reason: "a was wrong"},
		Load:    func() (*recipe.Recipe, error) { return f.recipe(t), nil },
		Apply:   f.apply,
	})
	var stop *backport.ConflictStop
	require.ErrorAs(t, err, &stop)
	return stop
}

// Issue 34: status said "no pick in progress (a pick never stops)" while
// a pick was stopped at a conflict.
func TestAStoppedPickIsNamedWithTheNextCommands(t *testing.T) {
	f := newFixture(t)
	rep, err := Gather(Request{Root: f.root})
	require.NoError(t, err)
	assert.Nil(t, rep.Pick)
	var text bytes.Buffer
	WriteText(&text, rep)
	assert.Contains(t, text.String(), "no pick stopped for "+f.root)

	stop := stopPick(t, f, "")
	rep, err = Gather(Request{Root: f.root})
	require.NoError(t, err)
	require.NotNil(t, rep.Pick)
	assert.Nil(t, rep.Rebase)
	p := rep.Pick
	assert.Equal(t, stop.Dir, p.Dir)
	assert.Equal(t, "v1", p.Version)
	assert.Equal(t, stop.Patch, p.StoppedAt)
	assert.Equal(t, "Fix a", p.Title)
	assert.Equal(t, []string{"a.txt"}, p.Marked)
	assert.Equal(t, 0, p.Done)
	assert.Equal(t, 1, p.Total)
	assert.Contains(t, p.Next, "epp-build pick --continue --dir "+stop.Dir)

	text.Reset()
	WriteText(&text, rep)
	assert.Contains(t, text.String(), "pick into v1 in "+stop.Dir+" (found in the default pick work tree for "+f.root+"): 0 of 1 picks in\n")
	assert.Contains(t, text.String(), "  stopped at a conflict in "+stop.Patch+" \"Fix a\" (marked: a.txt)\nnext:\n")
	assert.Contains(t, text.String(), "  epp-build pick --continue --dir "+stop.Dir+"\n")
	assert.Contains(t, text.String(), "  epp-build pick --skip --dir "+stop.Dir+"   # drop this pick and go on with the rest\n")
	assert.Contains(t, text.String(), "  epp-build pick --abort --dir "+stop.Dir+"  # throw the pick away\n")

	data, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"stoppedAt":"`+stop.Patch+`"`)

	// --abort ends it; status says so.
	_, err = backport.PickInto(t.Context(), backport.PickRequest{Root: f.root, Abort: true})
	require.NoError(t, err)
	rep, err = Gather(Request{Root: f.root})
	require.NoError(t, err)
	assert.Nil(t, rep.Pick)
}

// A pick started with --dir leaves no note where it works: status --dir
// shows it.
func TestStatusDirShowsAPickStartedWithDir(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(t.TempDir(), "pick")
	stopPick(t, f, dir)

	rep, err := Gather(Request{Root: f.root, Dir: dir})
	require.NoError(t, err)
	require.NotNil(t, rep.Pick)
	assert.Nil(t, rep.Rebase, "the folder holds a pick, not a rebase")
	assert.Equal(t, "--dir", rep.Pick.FoundHow)
	assert.Contains(t, rep.Pick.Next, "epp-build pick --continue --dir "+dir)
}
