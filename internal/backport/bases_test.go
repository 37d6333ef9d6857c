package backport

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingCheckout is checkout(t) noting which pins it checked out.
func countingCheckout(t *testing.T, refs *[]string) Materializer {
	return func(ctx context.Context, u recipe.Upstream, dst string) (recipe.Upstream, error) {
		*refs = append(*refs, u.Ref)
		return checkout(t)(ctx, u, dst)
	}
}

// pinFilesFromGit reads a pin's files with git cat-file, as the source
// stage reads them from its cache, noting the paths asked for.
func pinFilesFromGit(asked *[]string) PinFiles {
	return func(_ context.Context, u recipe.Upstream, paths []string) (map[string][]byte, error) {
		*asked = append(*asked, paths...)
		out := map[string][]byte{}
		for _, p := range paths {
			data, err := exec.Command("git", "-C", strings.TrimPrefix(u.Repository, "file://"), "cat-file", "blob", u.Commit+":"+p).Output()
			if err == nil {
				out[p] = data
			}
		}
		return out, nil
	}
}

// mergeAfterOffset is a line of two patches on v1 rebased onto v3, where
// the first applies at an offset and the second only by a three-way
// merge, whose base is the old pin's d.txt.
func mergeAfterOffset(t *testing.T) (pins, *recipe.Recipe, recipe.Upstream) {
	p := newPins(t)
	v3 := p.repo.Commit(t, "v3", map[string]string{
		"a.txt": "new header\n" + gitfixture.NumberedLines("a", 20),
		"d.txt": strings.NewReplacer("d 2 line\n", "d 2 upstream\n", "d 6 line\n", "d 6 upstream\n").Replace(gitfixture.NumberedLines("d", 20)),
	})
	p.repo.Tag(t, "v3", v3, true)
	r := writeSeries(t, p, t.TempDir(), "v9", []edit{
		{"a.txt", "a 5 line\n", "a = dynamo\n", "Route a"},
		{"d.txt", "d 4 line\n", "d = dynamo\n", "Route d"},
	})
	return p, r, p.pin("v3", v3)
}

// The merge's bases are read from the old pin's files where the fetch
// keeps them: only the new pin is checked out, only the files the series
// changes are read, and the merge is the one a checkout of the old pin
// gives.
func TestRebaseReadsTheBasesWithoutCheckingOutTheOldPin(t *testing.T) {
	ctx := context.Background()
	_, r, onto := mergeAfterOffset(t)
	var checkedOut, asked []string
	dir := filepath.Join(t.TempDir(), "rebase")

	steps, err := startWith(ctx, r, onto, "v10", dir, countingCheckout(t, &checkedOut), pinFilesFromGit(&asked), &strings.Builder{}, false, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch: applied at an offset", "0002-Route-d.patch: applied by three-way merge"}, outcomes(steps))
	assert.Equal(t, []string{"v3"}, checkedOut, "the old pin v1 is not checked out")
	sort.Strings(asked)
	assert.Equal(t, []string{"a.txt", "d.txt"}, asked)
	assert.Contains(t, readFile(t, filepath.Join(dir, "d.txt")), "d 2 upstream\nd 3 line\nd = dynamo\nd 5 line\nd 6 upstream\n")

	// The same rebase with a checkout of the old pin merges alike.
	_, r2, onto2 := mergeAfterOffset(t)
	var again []string
	dir2 := filepath.Join(t.TempDir(), "rebase")
	steps2, err := Start(ctx, r2, onto2, "v10", dir2, countingCheckout(t, &again), &strings.Builder{})
	require.NoError(t, err)
	assert.Equal(t, outcomes(steps), outcomes(steps2))
	assert.Equal(t, []string{"v3", "v1"}, again)
	assert.Equal(t, readFile(t, filepath.Join(dir, "d.txt")), readFile(t, filepath.Join(dir2, "d.txt")))
}

// When the pin's files cannot be read where the fetch keeps them (a
// damaged or pruned cache entry), the old pin is checked out instead,
// which fetches it again: the merge still has its bases.
func TestRebaseChecksTheOldPinOutWhenItsFilesCannotBeRead(t *testing.T) {
	ctx := context.Background()
	_, r, onto := mergeAfterOffset(t)
	var checkedOut []string
	unreadable := func(context.Context, recipe.Upstream, []string) (map[string][]byte, error) {
		return nil, errors.New("cache entry corrupt: d.txt")
	}
	dir := filepath.Join(t.TempDir(), "rebase")

	steps, err := startWith(ctx, r, onto, "v10", dir, countingCheckout(t, &checkedOut), unreadable, &strings.Builder{}, false, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"0001-Route-a.patch: applied at an offset", "0002-Route-d.patch: applied by three-way merge"}, outcomes(steps))
	assert.Equal(t, []string{"v3", "v1"}, checkedOut)
}
