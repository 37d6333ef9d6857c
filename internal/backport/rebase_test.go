package backport

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bBlock is the conflict Route b leaves in b.txt on v2: the one line
// both sides changed, upstream's, the old pin's and the patch's, diff3
// style as git am -3 writes it.
const bBlock = "<<<<<<< upstream v2\nb = upstream changed this\n" +
	"||||||| base: v1 and the patches before 0002-Route-b.patch\nb 1 line\n" +
	"=======\nb = dynamo\n" +
	">>>>>>> 0002-Route-b.patch\n"

// stopped is a rebase of fourEdits from v1 onto v2 that stopped at the
// conflict of Route b, the state every stop test starts from.
type stopped struct {
	p      pins
	root   string            // the patches folder
	dir    string            // the rebase's work tree
	before map[string]string // the patches folder before the start
	steps  []Step
	stop   *ConflictStop
}

// startFourEdits starts the rebase, into version as ("" rebases over v9).
func startFourEdits(t *testing.T, as string) stopped {
	t.Helper()
	s := stopped{p: newPins(t), root: t.TempDir(), dir: filepath.Join(t.TempDir(), "rebase")}
	r := writeSeries(t, s.p, s.root, "v9", fourEdits)
	s.before = files(t, s.root)
	var err error
	s.steps, err = Start(context.Background(), r, s.p.pin("v2", s.p.v2), as, s.dir, checkout(t), &strings.Builder{})
	require.ErrorAs(t, err, &s.stop)
	return s
}

func TestRebaseClassifiesStopsAtAConflictAndContinues(t *testing.T) {
	ctx := context.Background()
	s := startFourEdits(t, "v10")
	p, root, dir, before, steps, stop := s.p, s.root, s.dir, s.before, s.steps, s.stop
	var log strings.Builder

	assert.Equal(t, "0002-Route-b.patch", stop.Patch)
	assert.Equal(t, []string{"b.txt"}, stop.Marked)
	var conflict *patchset.ConflictError
	assert.ErrorAs(t, stop, &conflict, "the stop says why the patch did not apply")
	assert.Equal(t, []string{"0001-Route-a.patch: applied at an offset"}, outcomes(steps))
	assert.Equal(t, []patchset.Offset{{File: "a.txt", Hunk: steps[0].Offsets[0].Hunk, Lines: 3}}, steps[0].Offsets)
	assert.Equal(t, bBlock+strings.TrimPrefix(gitfixture.NumberedLines("b", 20), "b 1 line\n"), readFile(t, filepath.Join(dir, "b.txt")))
	assert.Equal(t, before, files(t, root), "nothing is written before the rebase finishes")

	st, err := load(dir)
	require.NoError(t, err)
	assert.Equal(t, "0002-Route-b.patch", st.Conflict)
	assert.Equal(t, 1, st.Next)
	assert.Equal(t, []string{"b.txt"}, st.Marked)
	head, err := headCommit(dir)
	require.NoError(t, err)
	assert.Equal(t, head, st.StopHead)
	assert.Equal(t, steps[0].Commit, head, "the stop is right after the last applied patch")

	steps, err = Continue(ctx, dir, &log)
	require.ErrorAs(t, err, &stop, "markers left: the rebase stays stopped")
	var left *MarkersLeft
	require.ErrorAs(t, err, &left)
	assert.Equal(t, []string{"b.txt"}, left.Files)
	assert.Len(t, steps, 1)

	resolved := strings.Replace(readFile(t, filepath.Join(dir, "b.txt")), bBlock, "b = dynamo on top of upstream\n", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte(resolved), 0o644))
	steps, err = Continue(ctx, dir, &log)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"0001-Route-a.patch: applied at an offset",
		"0002-Route-b.patch: conflict resolved by hand",
		"0003-Fix-c.patch: already upstream (dropped)",
		"0004-Route-d.patch: applied",
	}, outcomes(steps))
	assert.NotEmpty(t, steps[1].Commit)
	assert.Empty(t, steps[2].Commit, "a dropped patch makes no commit")
	assert.Contains(t, log.String(), "0002-Route-b.patch: conflict resolved by hand\n")
	assert.NoFileExists(t, filepath.Join(dir, ".git", stateFile), "a finished rebase leaves no state")

	v10, err := recipe.Load(filepath.Join(root, "v10"))
	require.NoError(t, err)
	assert.Equal(t, p.pin("v2", p.v2), v10.Upstream)
	assert.Equal(t, []string{"0001-Route-a.patch", "0002-Route-b.patch", "0004-Route-d.patch"}, v10.Patches)
	patch := readFile(t, filepath.Join(root, "v10", "0002-Route-b.patch"))
	assert.Contains(t, patch, "+b = dynamo on top of upstream\n")
	assert.Contains(t, patch, "From: Fixture Author <fixture@example.invalid>", "the resolution keeps the patch's author")
	assert.Equal(t, before, filesUnder(t, root, "v9"), "the old version is left as it was")
}

// filesUnder is files of root limited to the version folder v.
func filesUnder(t *testing.T, root, v string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for path, data := range files(t, root) {
		if strings.HasPrefix(path, filepath.Join(root, v)+string(filepath.Separator)) {
			out[path] = data
		}
	}
	return out
}

// Skip drops the patch with the edits made for it, and the rebase over
// the version itself (no --as) rewrites that version.
func TestRebaseSkipDropsThePatchAndFinishesOverTheVersion(t *testing.T) {
	ctx := context.Background()
	s := startFourEdits(t, "")
	p, root, dir := s.p, s.root, s.dir
	require.NoError(t, os.WriteFile(filepath.Join(dir, "scratch.txt"), []byte("an edit for the patch\n"), 0o644))

	steps, err := Skip(ctx, dir, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"0001-Route-a.patch: applied at an offset",
		"0002-Route-b.patch: skipped",
		"0003-Fix-c.patch: already upstream (dropped)",
		"0004-Route-d.patch: applied",
	}, outcomes(steps))
	assert.Equal(t, strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b = upstream changed this\n", 1), readFile(t, filepath.Join(dir, "b.txt")), "the markers are gone with the patch")
	assert.NoFileExists(t, filepath.Join(dir, "scratch.txt"), "edits made for the patch go too")

	v9, err := recipe.Load(filepath.Join(root, "v9"))
	require.NoError(t, err)
	assert.Equal(t, p.v2, v9.Upstream.Commit)
	assert.Equal(t, []string{"0001-Route-a.patch", "0004-Route-d.patch"}, v9.Patches)
	assert.NoFileExists(t, filepath.Join(root, "v9", "0002-Route-b.patch"))
	assert.Contains(t, readFile(t, filepath.Join(root, "v9", "0004-Route-d.patch")), "+d = dynamo\n")

	_, err = Skip(ctx, dir, &strings.Builder{})
	assert.ErrorContains(t, err, "no rebase in progress", "nothing is left to skip")
}

// A patch adding a file that upstream added too is merged over an empty
// base, as git's add/add: the whole file is one conflict, staged nowhere,
// and --continue waits until it is resolved.
func TestRebaseOfAFileAddedOnBothSidesMarksItWhole(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	r := writeSeries(t, p, root, "v9", []edit{{"e.txt", "", "e from the series\n", "Add e"}})
	dir := filepath.Join(t.TempDir(), "rebase")

	steps, err := Start(ctx, r, p.pin("v2", p.v2), "v10", dir, checkout(t), &strings.Builder{})
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	assert.Empty(t, steps)
	assert.Equal(t, []string{"e.txt"}, stop.Marked)
	assert.Equal(t, "<<<<<<< upstream v2\ne from upstream\n||||||| base: v1 and the patches before 0001-Add-e.patch\n=======\ne from the series\n>>>>>>> 0001-Add-e.patch\n",
		readFile(t, filepath.Join(dir, "e.txt")))

	_, err = Continue(ctx, dir, &strings.Builder{})
	var left *MarkersLeft
	require.ErrorAs(t, err, &left)
	assert.Equal(t, []string{"e.txt"}, left.Files)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "e.txt"), []byte("e from upstream\ne from the series\n"), 0o644))
	steps, err = Continue(ctx, dir, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Add-e.patch: conflict resolved by hand"}, outcomes(steps))
	assert.Contains(t, readFile(t, filepath.Join(root, "v10", "0001-Add-e.patch")), "+e from the series\n")
}

func TestRebaseAbortRemovesTheWorkTreeOnly(t *testing.T) {
	s := startFourEdits(t, "v10")
	root, dir, before := s.root, s.dir, s.before

	require.NoError(t, Abort(dir))
	assert.NoDirExists(t, dir)
	assert.Equal(t, before, files(t, root), "the recipes are as they were")
	assert.ErrorContains(t, Abort(dir), "no rebase in progress")

	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "keep.txt"), []byte("mine"), 0o644))
	assert.ErrorContains(t, Abort(other), "no rebase in progress", "a folder without a rebase is not thrown away")
	assert.FileExists(t, filepath.Join(other, "keep.txt"))
}

func TestRebaseStartRefusesBeforeFetching(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "v10"), 0o755))
	busy := t.TempDir()
	fresh := filepath.Join(t.TempDir(), "rebase")
	for name, tc := range map[string]struct {
		r       *recipe.Recipe
		as, dir string
		want    string
	}{
		"extends without --as": {&recipe.Recipe{Version: "v9.1", Dir: filepath.Join(root, "v9.1"), Extends: "v9"}, "", fresh, "v9.1 extends v9: rebase it into a new version with --as"},
		"work tree exists":     {&recipe.Recipe{Version: "v9", Dir: filepath.Join(root, "v9")}, "v11", busy, busy + " exists: a rebase in progress?"},
		"--as not a name":      {&recipe.Recipe{Version: "v9", Dir: filepath.Join(root, "v9")}, "../v11", fresh, `--as "../v11": a version is a plain folder name`},
		"--as exists":          {&recipe.Recipe{Version: "v9", Dir: filepath.Join(root, "v9")}, "v10", fresh, "--as v10: version v10 exists already"},
	} {
		fetched := false
		fetch := func(_ context.Context, u recipe.Upstream, _ string) (recipe.Upstream, error) {
			fetched = true
			return u, nil
		}
		_, err := Start(context.Background(), tc.r, recipe.Upstream{}, tc.as, tc.dir, fetch, &strings.Builder{})
		var usage *UsageError
		require.ErrorAs(t, err, &usage, name)
		assert.ErrorContains(t, err, tc.want, name)
		assert.False(t, fetched, "%s: refused before the upstream is fetched", name)
		assert.NoDirExists(t, fresh, name)
	}
}

// A failed fetch leaves no half-made work tree that would block the next
// start.
func TestRebaseStartCleansUpAFailedFetch(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(t.TempDir(), "rebase")
	boom := errors.New("upstream unreachable")
	fetch := func(_ context.Context, u recipe.Upstream, dst string) (recipe.Upstream, error) {
		require.NoError(t, os.MkdirAll(filepath.Join(dst, "partial"), 0o755))
		return u, boom
	}
	_, err := Start(context.Background(), &recipe.Recipe{Version: "v9", Dir: filepath.Join(root, "v9")}, recipe.Upstream{}, "v10", dir, fetch, &strings.Builder{})
	assert.ErrorIs(t, err, boom)
	assert.NoDirExists(t, dir)
}
