package backport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeFixes is fixRepo with two more commits on top, for ranges.
func threeFixes(t *testing.T, p pins) string {
	dir, _ := fixRepo(t, p, p.v1, "d.txt")
	for _, name := range []string{"a.txt", "c.txt"} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(readFile(t, path)+"more\n"), 0o644))
		gitfixture.Git(t, dir, "commit", "-q", "-am", "Fix "+name)
	}
	return dir
}

// A revision reads as git cherry-pick reads it: A..B is what git rev-list
// --reverse A..B lists, A^! is A alone, an empty range is a usage error
// that names it.
func TestPickRangesReadAsGitReadsThem(t *testing.T) {
	p := newPins(t)
	dir := threeFixes(t, p)
	for _, rev := range []string{p.v1 + "..HEAD", "HEAD~2..HEAD", "v1..", "HEAD~1..HEAD~1", "HEAD..v1", "HEAD~1^!", "HEAD"} {
		var want []string
		if strings.Contains(rev, "..") || strings.HasSuffix(rev, "^!") {
			if out := gitfixture.Git(t, dir, "rev-list", "--reverse", rev); out != "" {
				want = strings.Split(out, "\n")
			}
		} else {
			want = []string{gitfixture.Git(t, dir, "rev-parse", rev)}
		}
		picks, err := Collect([]string{rev}, PickOptions{Repo: dir, Reason: "r"})
		if len(want) == 0 {
			var usage *UsageError
			require.ErrorAs(t, err, &usage, rev)
			assert.ErrorContains(t, err, "pick "+rev+" from "+dir+": the range holds no commits", rev)
			continue
		}
		require.NoError(t, err, rev)
		var got []string
		for _, pk := range picks {
			got = append(got, pk.File)
		}
		var names []string
		for _, h := range want {
			names = append(names, gitformat.Short(h)+".patch")
		}
		assert.Equal(t, names, got, rev)
	}
	_, err := Collect([]string{"v1...HEAD"}, PickOptions{Repo: dir, Reason: "r"})
	var usage *UsageError
	require.ErrorAs(t, err, &usage)
	assert.ErrorContains(t, err, "v1...HEAD: a symmetric range")
}

// --from takes a bare repository (a git clone --mirror), as --upstream does.
func TestPickFromABareRepository(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:1])
	src, sha := fixRepo(t, p, p.v1, "d.txt")
	bare := filepath.Join(t.TempDir(), "fixes.git")
	gitfixture.Git(t, "", "clone", "-q", "--mirror", src, bare)

	picks, err := Collect([]string{sha}, PickOptions{Repo: bare, Reason: "r", Upstream: "https://example.com/pull/1"})
	require.NoError(t, err)
	require.Len(t, picks, 1)
	assert.Equal(t, "Fix the tail of d.txt", picks[0].Header.Title)

	res, err := PickInto(ctx, pickRequest(t, root, bare, filepath.Join(t.TempDir(), "pick"), "HEAD"))
	require.NoError(t, err)
	assert.Equal(t, []string{"0002-Fix-the-tail-of-d.txt.patch"}, res.Names)
}

// A pick whose change the series has already merges three-way to no
// change: as git cherry-pick, it stops naming the pick and pointing at
// --skip, and --continue finds nothing to record, naming it too.
func TestPickOfAChangeTheSeriesHasStopsForSkip(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", []edit{{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"}, {"d.txt", "d 4 line\n", "d 4 = series\n", "Fix d 4"}})
	repo := filepath.Join(t.TempDir(), "fixes")
	gitfixture.Git(t, "", "clone", "-q", p.repo.Dir, repo)
	gitfixture.Git(t, repo, "checkout", "-q", p.v1)
	path := filepath.Join(repo, "d.txt")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(readFile(t, path), "d 2 line\n", "d = dynamo\n", 1)), 0o644))
	gitfixture.Git(t, repo, "commit", "-q", "-am", "Route d upstream")
	sha := gitformat.Short(gitfixture.Git(t, repo, "rev-parse", "HEAD"))
	dir := filepath.Join(t.TempDir(), "pick")
	before := files(t, root)

	_, err := PickInto(ctx, pickRequest(t, root, repo, dir, "HEAD"))
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	require.ErrorIs(t, err, errPickEmpty)
	label := sha + ` "Route d upstream"`
	assert.Equal(t, label, stop.Pick)
	assert.Contains(t, err.Error(), "pick stopped at "+label+": nothing to record for "+label)
	assert.Contains(t, err.Error(), "next: `epp-build pick --skip --dir "+dir+"`")
	assert.Equal(t, before, files(t, root))
	status, err := PickInProgress(&Found{Dir: dir})
	require.NoError(t, err)
	assert.Equal(t, "Route d upstream", status.Title)
	assert.Contains(t, status.Next[0], "epp-build pick --skip --dir "+dir, "status puts --skip first, with nothing to resolve")

	_, err = PickInto(ctx, PickRequest{Root: root, Dir: dir, Continue: true})
	require.ErrorIs(t, err, errPickEmpty)
	assert.Contains(t, err.Error(), "nothing to record for "+label+": the work tree and HEAD are as the pick left them")
	assert.Contains(t, err.Error(), "epp-build pick --skip --dir "+dir)

	var log strings.Builder
	res, err := PickInto(ctx, PickRequest{Root: root, Dir: dir, Skip: true, Log: &log})
	require.NoError(t, err)
	assert.Empty(t, res.Names)
	assert.Equal(t, label+": skipped\n", log.String())
	v9, err := recipe.Load(filepath.Join(root, "v9"))
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-d.patch", "0002-Fix-d-4.patch"}, v9.Patches)
}

// A conflict names the pick by abbreviated commit and subject.
func TestPickConflictNamesThePick(t *testing.T) {
	ctx := context.Background()
	p := newPins(t)
	root := t.TempDir()
	writeSeries(t, p, root, "v9", fourEdits[:1])
	repo := fixOnV2(t, p)
	dir := filepath.Join(t.TempDir(), "pick")
	_, err := PickInto(ctx, pickRequest(t, root, repo, dir, "HEAD"))
	var stop *ConflictStop
	require.ErrorAs(t, err, &stop)
	sha := gitformat.Short(gitfixture.Git(t, repo, "rev-parse", "HEAD"))
	assert.Contains(t, err.Error(), "pick stopped at "+sha+` "Fix b again": file b.txt`)
}
