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
func apply(t *testing.T) Applier {
	return func(ctx context.Context, r *recipe.Recipe, out string) error {
		if _, err := checkout(t)(ctx, r.Upstream, out); err != nil {
			return err
		}
		var series []*patchset.Patch
		for _, sp := range r.Series {
			ps, err := patchset.ParseFile(sp.Path, sp.Name)
			if err != nil {
				return err
			}
			series = append(series, ps...)
		}
		_, err := patchset.ApplyToRepo(ctx, out, series, patchset.Options{Branch: "epp-build/" + r.Version})
		return err
	}
}

func TestPickPutsThePicksOnTopOfTheSeries(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	r := writeSeries(t, p, root, "v9", fourEdits[:1])
	dir, sha := fixRepo(t, p, p.v1, "d.txt")
	picks, err := Collect([]string{sha}, PickOptions{Repo: dir, Reason: "stuck streams"})
	require.NoError(t, err)
	before := files(t, root)

	series, res, err := Pick(ctx, r, apply(t), picks, filepath.Join(t.TempDir(), "tree"))
	require.NoError(t, err)
	require.Len(t, series, 2)
	assert.Equal(t, "0001-Route-a.patch", series[0].Name, "the series comes first, its file names kept")
	assert.Equal(t, "0002-Fix-the-tail-of-d.txt.patch", series[1].Name)
	require.Len(t, res.Patches, 1)
	assert.Equal(t, res.Patches[0].Commit, series[1].Commit)
	again, err := patchset.Parse(series[1].Name, series[1].Data)
	require.NoError(t, err)
	h := again[0].Header
	assert.Equal(t, "Jörg Müller <joerg@example.org>", h.Author.Name+" <"+h.Author.Email+">")
	assert.True(t, fixWhen.Equal(h.AuthorDate), "%s", h.AuthorDate)
	assert.Contains(t, h.Body, "Upstream: https://github.com/example/gaie/commit/"+sha+"\nReason: stuck streams")
	assert.Contains(t, string(series[1].Data), "+appended by the fix\n")
	assert.Equal(t, before, files(t, root), "Pick writes nothing; its caller does")
}

func TestPickOfAChangeThatDoesNotApplyFails(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	r := writeSeries(t, p, root, "v9", fourEdits[:1])
	// A fix made on v2 for the line v2 changed: it has no place on v1.
	dir := filepath.Join(t.TempDir(), "fixes")
	gitfixture.Git(t, "", "clone", "-q", p.repo.Dir, dir)
	gitfixture.Git(t, dir, "checkout", "-q", p.v2)
	path := filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(readFile(t, path), "b = upstream changed this\n", "b = fixed again\n", 1)), 0o644))
	gitfixture.Git(t, dir, "commit", "-q", "-am", "Fix b again")
	picks, err := Collect([]string{"HEAD"}, PickOptions{Repo: dir, Upstream: "https://example.com/pull/3", Reason: "r"})
	require.NoError(t, err)

	series, res, err := Pick(ctx, r, apply(t), picks, filepath.Join(t.TempDir(), "tree"))
	var conflict *patchset.ConflictError
	require.ErrorAs(t, err, &conflict)
	assert.Equal(t, "b.txt", conflict.File)
	assert.Nil(t, series)
	assert.Nil(t, res)
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
