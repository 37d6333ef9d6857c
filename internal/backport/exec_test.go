package backport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cleanEdits rebases from v1 onto v2 without a conflict: one patch moves,
// one applies as it is, one is already upstream.
var cleanEdits = []edit{fourEdits[0], fourEdits[3], fourEdits[2]}

// buildCommand stands for a build: it counts its runs in runs (outside the
// tree), leaves an output in the tree, and fails while d.txt holds the
// patch's line without the fix.
func buildCommand(runs string) string {
	return `echo run >> '` + runs + `'; echo binary > build.out; ` +
		`if grep -q 'd = dynamo' d.txt && ! grep -q 'd fixed' d.txt; then echo 'd does not build' >&2; exit 3; fi`
}

func countRuns(t *testing.T, runs string) int {
	t.Helper()
	data, err := os.ReadFile(runs)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(data), "run\n")
}

func TestRebaseExecStopsAtTheFirstFailureAndContinueRunsItAgain(t *testing.T) {
	ctx := context.Background()
	p, root, dir := newPins(t), t.TempDir(), filepath.Join(t.TempDir(), "rebase")
	runs := filepath.Join(t.TempDir(), "runs")
	r := writeSeries(t, p, root, "v9", cleanEdits)
	var log strings.Builder

	steps, err := Start(ctx, r, p.pin("v2", p.v2), "v10", dir, checkout(t), &log, Exec{Command: buildCommand(runs)})
	var stop *ExecStop
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, "0002-Route-d.patch", stop.After)
	assert.Equal(t, 3, stop.ExitCode())
	assert.Equal(t, 2, countRuns(t, runs), "the command ran after each patch up to the failure")
	assert.Equal(t, []string{"0001-Route-a.patch: applied at an offset", "0002-Route-d.patch: applied"}, outcomes(steps))
	assert.Contains(t, log.String(), "d does not build\n", "the command's output goes to the log")
	assert.Contains(t, stop.Error(), "rebase --continue")
	assert.NoDirExists(t, filepath.Join(root, "v10"), "nothing is written at a stop")

	// Continue without a fix runs the command again and stops again.
	_, err = Continue(ctx, dir, &log)
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, 3, countRuns(t, runs))

	// The fix is folded into the patch's commit; the build output is not.
	d := readFile(t, filepath.Join(dir, "d.txt"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.txt"), []byte(d+"d fixed\n"), 0o644))
	steps, err = Continue(ctx, dir, &log)
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch: applied at an offset", "0002-Route-d.patch: applied", "0003-Fix-c.patch: already upstream (dropped)"}, outcomes(steps))
	assert.Equal(t, 4, countRuns(t, runs), "a dropped patch makes no commit to build")

	v10, err := recipe.Load(filepath.Join(root, "v10"))
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch", "0002-Route-d.patch"}, v10.Patches)
	patch := readFile(t, filepath.Join(root, "v10", "0002-Route-d.patch"))
	assert.Contains(t, patch, "+d fixed\n", "the fix made at the stop is part of the patch")
	for _, name := range v10.Patches {
		assert.NotContains(t, readFile(t, filepath.Join(root, "v10", name)), "build.out", "the command's output is never part of a patch")
	}
}

func TestRebaseExecSkipDropsThePatchTheCommandFailedAfter(t *testing.T) {
	ctx := context.Background()
	p, root, dir := newPins(t), t.TempDir(), filepath.Join(t.TempDir(), "rebase")
	runs := filepath.Join(t.TempDir(), "runs")
	r := writeSeries(t, p, root, "v9", cleanEdits)

	_, err := Start(ctx, r, p.pin("v2", p.v2), "v10", dir, checkout(t), &strings.Builder{}, Exec{Command: buildCommand(runs)})
	var stop *ExecStop
	require.ErrorAs(t, err, &stop)
	steps, err := Skip(ctx, dir, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch: applied at an offset", "0002-Route-d.patch: skipped", "0003-Fix-c.patch: already upstream (dropped)"}, outcomes(steps))
	assert.NotContains(t, readFile(t, filepath.Join(dir, "d.txt")), "d = dynamo", "the patch is gone from the tree")
	v10, err := recipe.Load(filepath.Join(root, "v10"))
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch"}, v10.Patches)
}

func TestRebaseExecAtEndRunsOnceAndCannotSkip(t *testing.T) {
	ctx := context.Background()
	p, root, dir := newPins(t), t.TempDir(), filepath.Join(t.TempDir(), "rebase")
	runs := filepath.Join(t.TempDir(), "runs")
	r := writeSeries(t, p, root, "v9", cleanEdits)

	_, err := Start(ctx, r, p.pin("v2", p.v2), "v10", dir, checkout(t), &strings.Builder{}, Exec{Command: buildCommand(runs), AtEnd: true})
	var stop *ExecStop
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, execAtEnd, stop.After)
	assert.Equal(t, 1, countRuns(t, runs))
	_, err = Skip(ctx, dir, &strings.Builder{})
	var usage *UsageError
	require.ErrorAs(t, err, &usage, "no patch to skip at the end")

	d := readFile(t, filepath.Join(dir, "d.txt"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.txt"), []byte(d+"d fixed\n"), 0o644))
	_, err = Continue(ctx, dir, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, 2, countRuns(t, runs))
	assert.Contains(t, readFile(t, filepath.Join(root, "v10", "0002-Route-d.patch")), "+d fixed\n", "the fix goes into the last patch's commit")
}

func TestRebaseExecThatPassesLeavesTheRebaseAsWithout(t *testing.T) {
	ctx := context.Background()
	p, root, dir := newPins(t), t.TempDir(), filepath.Join(t.TempDir(), "rebase")
	r := writeSeries(t, p, root, "v9", cleanEdits)
	steps, err := Start(ctx, r, p.pin("v2", p.v2), "v10", dir, checkout(t), &strings.Builder{}, Exec{Command: "echo out > build.out"})
	require.NoError(t, err)
	assert.Len(t, steps, 3)
	assert.FileExists(t, filepath.Join(dir, "build.out"), "the command's outputs stay for the user")
}
