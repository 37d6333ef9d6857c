package backport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A patch whose context upstream changed (so it does not apply) but whose
// own lines upstream left alone merges cleanly: it is committed, as git
// am -3 commits it, and the rebase goes on.
func TestRebaseCommitsACleanThreeWayMerge(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	v3 := p.repo.Commit(t, "v3", map[string]string{"d.txt": strings.NewReplacer("d 2 line\n", "d 2 upstream\n", "d 6 line\n", "d 6 upstream\n").Replace(gitfixture.NumberedLines("d", 20))})
	p.repo.Tag(t, "v3", v3, true)
	root := t.TempDir()
	r := writeSeries(t, p, root, "v9", []edit{{"d.txt", "d 4 line\n", "d = dynamo\n", "Route d"}})
	dir := filepath.Join(t.TempDir(), "rebase")

	steps, err := Start(ctx, r, p.pin("v3", v3), "v10", dir, checkout(t), &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-d.patch: applied by three-way merge"}, outcomes(steps))
	assert.Contains(t, readFile(t, filepath.Join(dir, "d.txt")), "d 2 upstream\nd 3 line\nd = dynamo\nd 5 line\nd 6 upstream\n")
	patch := readFile(t, filepath.Join(root, "v10", "0001-Route-d.patch"))
	assert.Contains(t, patch, "-d 4 line\n+d = dynamo\n")
	assert.Contains(t, patch, "From: Fixture Author <fixture@example.invalid>")
}

// A patch editing a file that upstream deleted cannot be merged: its
// change goes to a .rej file, and deleting that file is the resolution
// (the change is not wanted any more): --continue records it and the
// patch leaves the series.
func TestRebaseDeletingARejFileResolvesTheStop(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	v3 := p.repo.Commit(t, "v3", map[string]string{"d.txt": ""})
	p.repo.Tag(t, "v3", v3, true)
	root := t.TempDir()
	r := writeSeries(t, p, root, "v9", []edit{
		{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
		{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"},
	})
	dir := filepath.Join(t.TempDir(), "rebase")

	_, err := Start(ctx, r, p.pin("v3", v3), "v10", dir, checkout(t), &strings.Builder{})
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, []string{"d.txt.rej"}, stop.Marked)
	assert.Contains(t, readFile(t, filepath.Join(dir, "d.txt.rej")), "+d = dynamo\n")

	_, err = Continue(ctx, dir, &strings.Builder{})
	var left *MarkersLeft
	require.ErrorAs(t, err, &left, "the .rej file is still there")

	require.NoError(t, os.Remove(filepath.Join(dir, "d.txt.rej")))
	steps, err := Continue(ctx, dir, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch: applied at an offset", "0002-Route-d.patch: resolved to no change (dropped)"}, outcomes(steps))
	v10, err := recipe.Load(filepath.Join(root, "v10"))
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch"}, v10.Patches)
}

// Deleting the conflicted file is a resolution too: the deletion is
// recorded as the patch's change.
func TestRebaseDeletingTheConflictedFileIsRecorded(t *testing.T) {
	ctx := context.Background()
	s := startFourEdits(t, "v10")
	require.NoError(t, os.Remove(filepath.Join(s.dir, "b.txt")))

	steps, err := Continue(ctx, s.dir, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, "0002-Route-b.patch: conflict resolved by hand", outcomes(steps)[1])
	assert.Contains(t, readFile(t, filepath.Join(s.root, "v10", "0002-Route-b.patch")), "deleted file mode 100644\n")
}

// Without the old pin (it cannot be fetched) there is no base: the stop
// says so and puts what does not apply into .rej files.
func TestRebaseWithoutTheOldPinFallsBackToRejFiles(t *testing.T) {
	p := newPins(t)
	root := t.TempDir()
	r := writeSeries(t, p, root, "v9", fourEdits)
	dir := filepath.Join(t.TempDir(), "rebase")
	clone := checkout(t)
	newOnly := func(ctx context.Context, u recipe.Upstream, dst string) (recipe.Upstream, error) {
		if u.Commit != p.v2 {
			return u, os.ErrPermission
		}
		return clone(ctx, u, dst)
	}
	var log strings.Builder
	_, err := Start(context.Background(), r, p.pin("v2", p.v2), "v10", dir, newOnly, &log)
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, []string{"b.txt.rej"}, stop.Marked)
	assert.Contains(t, log.String(), "no three-way merge: the old pin v1 could not be fetched")
}

// A stop stages the patch's new files, as git am -3 does; --skip takes
// them out again with the rest of the patch.
func TestRebaseStopStagesNewFilesAndSkipRemovesThem(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	r := writeSeries(t, p, root, "v9", []edit{{"b.txt", "b 1 line\n", "b = dynamo\n", "Route b"}})
	// The same patch also adds a file.
	patch := filepath.Join(root, "v9", "0001-Route-b.patch")
	addition := "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new from the series\n"
	require.NoError(t, os.WriteFile(patch, []byte(readFile(t, patch)+addition), 0o644))
	dir := filepath.Join(t.TempDir(), "rebase")

	_, err := Start(ctx, r, p.pin("v2", p.v2), "v10", dir, checkout(t), &strings.Builder{})
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, []string{"b.txt"}, stop.Marked)
	status := gitfixture.Git(t, dir, "status", "--porcelain")
	assert.Contains(t, status, "A  n.txt", "the new file is staged")
	assert.Contains(t, status, "M b.txt", "the conflicted file is not")

	steps, err := Skip(ctx, dir, &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-b.patch: skipped"}, outcomes(steps))
	assert.NoFileExists(t, filepath.Join(dir, "n.txt"))
}
