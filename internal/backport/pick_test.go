package backport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fix is authored elsewhere, in another time zone; a pick must keep
// that byte for byte.
const (
	fixAuthor = "Jörg Müller <joerg@example.org>"
	fixDate   = "2026-03-04T05:06:07+05:30"
)

var fixWhen = time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("", 5*3600+30*60))

// fixRepo is a clone of the upstream at commit whose origin is a GitHub
// repository, with one commit by fixAuthor that appends a line to file.
func fixRepo(t *testing.T, p pins, commit, file string) (dir, sha string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "fixes")
	gitfixture.Git(t, "", "clone", "-q", p.repo.Dir, dir)
	gitfixture.Git(t, dir, "checkout", "-q", commit)
	gitfixture.Git(t, dir, "remote", "set-url", "origin", "git@github.com:example/gaie.git")
	path := filepath.Join(dir, file)
	require.NoError(t, os.WriteFile(path, []byte(readFile(t, path)+"appended by the fix\n"), 0o644))
	gitfixture.Git(t, dir, "commit", "-q", "-a", "--author="+fixAuthor, "--date="+fixDate, "-m", "Fix the tail of "+file+"\n\nThe last line was missing.")
	return dir, gitfixture.Git(t, dir, "rev-parse", "HEAD")
}

func TestCollectFromARepositoryKeepsAuthorshipAndSaysWhereFrom(t *testing.T) {
	p := newPins(t)
	dir, sha := fixRepo(t, p, p.v1, "d.txt")

	picks, err := Collect([]string{sha}, PickOptions{Repo: dir, Reason: "stuck streams on the v9 line"})
	require.NoError(t, err)
	require.Len(t, picks, 1)
	h := picks[0].Header
	assert.Equal(t, "Jörg Müller", h.Author.Name)
	assert.Equal(t, "joerg@example.org", h.Author.Email)
	assert.True(t, fixWhen.Equal(h.AuthorDate), "%s", h.AuthorDate)
	_, offset := h.AuthorDate.Zone()
	assert.Equal(t, 5*3600+30*60, offset, "the author's time zone is kept")
	assert.Equal(t, "Fix the tail of d.txt", h.Title)
	assert.Equal(t, "The last line was missing.\n\nUpstream: https://github.com/example/gaie/commit/"+sha+"\nReason: stuck streams on the v9 line", strings.TrimRight(h.Body, "\n"),
		"a GitHub origin gives the commit's URL")

	// A range, oldest first; a link given beats the origin's, and a
	// trailer the commit has already is kept, next to the user's reason.
	second := filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(second, []byte(readFile(t, second)+"more\n"), 0o644))
	gitfixture.Git(t, dir, "commit", "-q", "-am", "Second fix\n\nMore.\n\nReason: its own")
	picks, err = Collect([]string{p.v1 + "..HEAD"}, PickOptions{Repo: dir, Upstream: "https://example.com/pull/1", Reason: "backport"})
	require.NoError(t, err)
	require.Len(t, picks, 2)
	assert.Equal(t, "Fix the tail of d.txt", picks[0].Header.Title)
	assert.Equal(t, "Second fix", picks[1].Header.Title)
	assert.Equal(t, "More.\n\nReason: its own\nUpstream: https://example.com/pull/1\nReason: backport", strings.TrimRight(picks[1].Header.Body, "\n"))

	_, err = Collect([]string{"no-such-rev"}, PickOptions{Repo: dir, Reason: "r"})
	assert.ErrorContains(t, err, "pick no-such-rev from "+dir)
}

func TestCollectFromAPatchFileWantsUpstreamAndReason(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fix.patch")
	require.NoError(t, os.WriteFile(file, []byte(twoHunks), 0o644))

	_, err := Collect([]string{file}, PickOptions{Reason: "r"})
	assert.ErrorContains(t, err, `pick "two hunks and a new file": no Upstream: trailer and no --upstream-link`)
	_, err = Collect([]string{file}, PickOptions{Upstream: "https://example.com/pull/2"})
	assert.ErrorContains(t, err, `pick "two hunks and a new file": no Reason: trailer and no --reason`)

	picks, err := Collect([]string{file}, PickOptions{Upstream: "https://example.com/pull/2", Reason: "r"})
	require.NoError(t, err)
	require.Len(t, picks, 1)
	assert.Equal(t, "r\n\nUpstream: https://example.com/pull/2\nReason: r", strings.TrimRight(picks[0].Header.Body, "\n"), "a pick without a body gets the reason as one")
	assert.Equal(t, "A", picks[0].Header.Author.Name)
}

// apply is the apply stage for the tests: the pin checked out and the
// series applied on it.
func apply(t *testing.T) patchset.Applier {
	return func(ctx context.Context, r *recipe.Recipe, out string) error {
		if _, err := checkout(t)(ctx, r.Upstream, out); err != nil {
			return err
		}
		series, err := patchset.LoadSeries(r)
		if err != nil {
			return err
		}
		_, err = patchset.ApplyToRepo(ctx, out, series, patchset.Options{Branch: "epp-build/" + r.Version})
		return err
	}
}

// pickRequest picks sources of repo into version v9 of root.
func pickRequest(t *testing.T, root, repo, dir string, sources ...string) PickRequest {
	return PickRequest{Root: root, Version: "v9", Sources: sources, Dir: dir,
		Options: PickOptions{Repo: repo, Upstream: "https://example.com/pull/3", Reason: "stuck streams"},
		Load:    func() (*recipe.Recipe, error) { return recipe.LoadVersion(root, "v9") }, Apply: apply(t)}
}

func TestPickPutsThePicksOnTopOfTheSeries(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:1])
	repo, sha := fixRepo(t, p, p.v1, "d.txt")
	dir := filepath.Join(t.TempDir(), "pick")

	res, err := PickInto(ctx, pickRequest(t, root, repo, dir, sha))
	require.NoError(t, err)
	assert.Equal(t, []string{"0002-Fix-the-tail-of-d.txt.patch"}, res.Names)
	v9, err := recipe.Load(filepath.Join(root, "v9"))
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch", "0002-Fix-the-tail-of-d.txt.patch"}, v9.Patches, "the series comes first, its file names kept")
	again, err := patchset.ParseFile(filepath.Join(root, "v9", res.Names[0]), res.Names[0])
	require.NoError(t, err)
	h := again[0].Header
	assert.Equal(t, "Jörg Müller <joerg@example.org>", h.Author.Name+" <"+h.Author.Email+">")
	assert.True(t, fixWhen.Equal(h.AuthorDate), "%s", h.AuthorDate)
	assert.Contains(t, h.Body, "Upstream: https://example.com/pull/3\nReason: stuck streams")
	assert.Contains(t, readFile(t, filepath.Join(root, "v9", res.Names[0])), "+appended by the fix\n")
	assert.NoDirExists(t, dir, "a finished pick leaves no work tree")
}

// fixOnV2 is a fix made on v2 for the line v2 changed: on v1 it does not
// apply, and merged three-way it conflicts with v1's line.
func fixOnV2(t *testing.T, p pins) string {
	dir := filepath.Join(t.TempDir(), "fixes")
	gitfixture.Git(t, "", "clone", "-q", p.repo.Dir, dir)
	gitfixture.Git(t, dir, "checkout", "-q", p.v2)
	path := filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(readFile(t, path), "b = upstream changed this\n", "b = fixed again\n", 1)), 0o644))
	gitfixture.Git(t, dir, "commit", "-q", "-am", "Fix b again")
	return dir
}

// A pick that does not apply is merged three-way with its base from the
// repository it came from: a conflict stops the pick with markers, the
// version untouched; --continue records the resolution and writes it.
func TestPickOfAChangeThatDoesNotApplyStopsAtAConflictAndContinues(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:1])
	repo := fixOnV2(t, p)
	dir := filepath.Join(t.TempDir(), "pick")
	before := files(t, root)

	_, err := PickInto(ctx, pickRequest(t, root, repo, dir, "HEAD"))
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	var conflict *patchset.ConflictError
	require.ErrorAs(t, err, &conflict)
	assert.Equal(t, "b.txt", conflict.File)
	assert.Equal(t, []string{"b.txt"}, stop.Marked)
	assert.Contains(t, err.Error(), "epp-build pick --continue --dir "+dir)
	assert.Equal(t, "<<<<<<< v9 with its series\nb 1 line\n||||||| base of "+stop.Patch+"\nb = upstream changed this\n=======\nb = fixed again\n>>>>>>> "+stop.Patch+"\n"+
		strings.TrimPrefix(gitfixture.NumberedLines("b", 20), "b 1 line\n"), readFile(t, filepath.Join(dir, "b.txt")))
	assert.Equal(t, before, files(t, root), "nothing is written while stopped")

	_, err = PickInto(ctx, PickRequest{Root: root, Dir: dir, Continue: true})
	var left *MarkersLeft
	require.ErrorAs(t, err, &left)

	_, err = PickInto(ctx, pickRequest(t, root, repo, dir, "HEAD"))
	var usage *UsageError
	require.ErrorAs(t, err, &usage, "a stopped pick is finished or aborted first")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte(strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b 1 line fixed again\n", 1)), 0o644))
	res, err := PickInto(ctx, PickRequest{Root: root, Dir: dir, Continue: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"0002-Fix-b-again.patch"}, res.Names)
	patch := readFile(t, filepath.Join(root, "v9", "0002-Fix-b-again.patch"))
	assert.Contains(t, patch, "+b 1 line fixed again\n")
	assert.Contains(t, patch, "Reason: stuck streams")
	assert.NoDirExists(t, dir)
}

// --abort throws the stopped pick away, with the version it created.
func TestPickAbortRemovesTheWorkTreeAndTheCreatedVersion(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:1])
	repo := fixOnV2(t, p)
	dir := filepath.Join(t.TempDir(), "pick")
	before := files(t, root)
	req := pickRequest(t, root, repo, dir, "HEAD")
	req.Version, req.Extends = "v9.1", "v9"
	req.Load = func() (*recipe.Recipe, error) { return recipe.LoadVersion(root, "v9.1") }

	_, err := PickInto(ctx, req)
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	assert.DirExists(t, filepath.Join(root, "v9.1"), "kept while the pick is stopped")

	res, err := PickInto(ctx, PickRequest{Root: root, Dir: dir, Abort: true})
	require.NoError(t, err)
	assert.True(t, res.Aborted)
	assert.NoDirExists(t, dir)
	assert.Equal(t, before, files(t, root))
	_, err = PickInto(ctx, PickRequest{Root: root, Dir: dir, Abort: true})
	assert.ErrorContains(t, err, "no pick in progress")
}

// A pick whose context changed but whose own lines did not merges
// cleanly and is committed, as git am -3 does.
func TestPickMergesCleanlyWhereOnlyTheContextChanged(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", []edit{{"d.txt", "d 2 line\n", "d = series\n", "Route d"}})
	repo := filepath.Join(t.TempDir(), "fixes")
	gitfixture.Git(t, "", "clone", "-q", p.repo.Dir, repo)
	gitfixture.Git(t, repo, "checkout", "-q", p.v1)
	path := filepath.Join(repo, "d.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(readFile(t, path), "d 4 line\n", "d 4 fixed\n", 1)), 0o644))
	gitfixture.Git(t, repo, "commit", "-q", "-am", "Fix d 4")
	dir := filepath.Join(t.TempDir(), "pick")

	res, err := PickInto(ctx, pickRequest(t, root, repo, dir, "HEAD"))
	require.NoError(t, err)
	assert.Equal(t, []string{"0002-Fix-d-4.patch"}, res.Names)
	assert.Contains(t, readFile(t, filepath.Join(root, "v9", "0002-Fix-d-4.patch")), "+d 4 fixed\n")
}

func TestNewVersionExtendsTheBase(t *testing.T) {
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:2])

	dir, err := NewVersion(root, "v9.1", "v9")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "v9.1"), dir)
	r, err := recipe.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "v9", r.Extends)
	assert.Empty(t, r.Patches)
	assert.Len(t, r.Series, 2, "the base's series comes along")
	assert.Equal(t, p.v1, r.Upstream.Commit)

	_, err = NewVersion(root, "v9.1", "v9")
	assert.ErrorContains(t, err, "version v9.1 exists already")
	_, err = NewVersion(root, "v9.2", "v8")
	assert.Error(t, err)
	assert.NoDirExists(t, filepath.Join(root, "v9.2"), "no version without a base")
}

func TestWithReasonBodyOnlyFillsAnEmptyBody(t *testing.T) {
	assert.Equal(t, "why\n\nReason: why", withReasonBody("Reason: why", "why"))
	assert.Equal(t, "why", withReasonBody("", "why"))
	assert.Equal(t, "The commit says why.\n\nReason: r", withReasonBody("The commit says why.\n\nReason: r", "r"))
	assert.Equal(t, "Reason: r", withReasonBody("Reason: r", ""))
}

// A plain `git diff` names its base by an abbreviated blob id; a pick of
// it finds that blob in the work tree (the upstream pin's files) and
// merges, instead of rejecting the file.
func TestPickOfAPlainDiffFindsItsBaseInTheWorkTree(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[1:2]) // Route b: b 1 line
	repo := filepath.Join(t.TempDir(), "fixes")
	gitfixture.Git(t, "", "clone", "-q", p.repo.Dir, repo)
	gitfixture.Git(t, repo, "checkout", "-q", p.v1)
	path := filepath.Join(repo, "b.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(readFile(t, path), "b 1 line\n", "b 1 from the diff\n", 1)), 0o644))
	diff := writePatch(t, "gaie.patch", gitfixture.Git(t, repo, "diff")+"\n")
	require.Regexp(t, `index [0-9a-f]{7,12}\.\.`, readFile(t, diff), "git diff abbreviates the blob ids")
	dir := filepath.Join(t.TempDir(), "pick")
	req := pickRequest(t, root, "", dir, diff)
	req.Options.Author, req.Options.Subject = "Ann Example <ann@example.com>", "Route by model name"

	_, err := PickInto(ctx, req)
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, []string{"b.txt"}, stop.Marked, "merged with markers, not a .rej")
	assert.Contains(t, readFile(t, filepath.Join(dir, "b.txt")), "\nb 1 line\n=======\nb 1 from the diff\n>>>>>>> gaie.patch\n")
}

// --skip drops the pick stopped at, with what the merge and the user left
// in the work tree, and goes on with the rest, as git cherry-pick --skip
// does: the series gets only the picks that went in.
func TestPickSkipDropsTheStoppedPickAndGoesOn(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:1])
	repo := fixOnV2(t, p)
	path := filepath.Join(repo, "d.txt")
	require.NoError(t, os.WriteFile(path, []byte(readFile(t, path)+"appended by the fix\n"), 0o644))
	gitfixture.Git(t, repo, "commit", "-q", "-am", "Fix the tail of d")
	dir := filepath.Join(t.TempDir(), "pick")

	_, err := PickInto(ctx, PickRequest{Root: root, Dir: dir, Skip: true})
	assert.ErrorContains(t, err, "no pick in progress")

	_, err = PickInto(ctx, pickRequest(t, root, repo, dir, "HEAD~1", "HEAD"))
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	assert.Equal(t, []string{"b.txt"}, stop.Marked, "the first pick conflicts")
	assert.Contains(t, err.Error(), "epp-build pick --skip --dir "+dir)
	// What the user may have left mid-resolution goes with the pick.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "half-done.txt"), []byte("x\n"), 0o644))

	_, err = PickInto(ctx, PickRequest{Root: root, Dir: dir, Skip: true, Continue: true})
	var usage *UsageError
	require.ErrorAs(t, err, &usage, "--skip and --continue exclude each other")

	var log strings.Builder
	res, err := PickInto(ctx, PickRequest{Root: root, Dir: dir, Skip: true, Log: &log})
	require.NoError(t, err)
	assert.Equal(t, stop.Pick+": skipped\n", log.String(), "the log names the pick by commit and subject")
	v9, err := recipe.Load(filepath.Join(root, "v9"))
	require.NoError(t, err)
	require.Equal(t, []string{"0001-Route-a.patch", "0002-Fix-the-tail-of-d.patch"}, v9.Patches, "the skipped pick is not in the series")
	assert.Equal(t, v9.Patches[1:], res.Names)
	patch := readFile(t, filepath.Join(root, "v9", v9.Patches[1]))
	assert.Contains(t, patch, "+appended by the fix\n")
	assert.NotContains(t, patch, "b.txt", "nothing of the skipped pick or its merge is recorded")
	assert.NotContains(t, patch, "half-done")
	assert.NoDirExists(t, dir)
}
