package backport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/require"
)

// pins is an upstream with two releases. Between v1 and v2, a.txt gains
// lines at the top (a patch moves), b.txt changes the line the series
// edits (a conflict), c.txt receives the series' fix (already upstream)
// and e.txt appears (a patch adding it conflicts as a whole file).
type pins struct {
	repo   *gitfixture.Repo
	v1, v2 string
}

func newPins(t *testing.T) pins {
	t.Helper()
	repo := gitfixture.New(t)
	v1 := repo.Commit(t, "v1", map[string]string{
		"a.txt": gitfixture.NumberedLines("a", 20), "b.txt": gitfixture.NumberedLines("b", 20), "c.txt": gitfixture.NumberedLines("c", 20), "d.txt": gitfixture.NumberedLines("d", 20),
	})
	repo.Tag(t, "v1", v1, true)
	v2 := repo.Commit(t, "v2", map[string]string{
		"a.txt": "new header 1\nnew header 2\nnew header 3\n" + gitfixture.NumberedLines("a", 20),
		"b.txt": strings.Replace(gitfixture.NumberedLines("b", 20), "b 1 line\n", "b = upstream changed this\n", 1),
		"c.txt": strings.Replace(gitfixture.NumberedLines("c", 20), "c 3 line\n", "c 3 fixed line\n", 1),
		"e.txt": "e from upstream\n",
	})
	repo.Tag(t, "v2", v2, true)
	return pins{repo: repo, v1: v1, v2: v2}
}

// pin is the recipe pin of one of the releases.
func (p pins) pin(ref, commit string) recipe.Upstream {
	return recipe.Upstream{Repository: p.repo.FileURL(), Ref: ref, Commit: commit}
}

// edit is one commit of a test series: replace from with to in file (or
// write to as a new file when from is "").
type edit struct{ file, from, to, subject string }

// fourEdits is the series the rebase tests replay: one patch per outcome.
var fourEdits = []edit{
	{"a.txt", "a 1 line\n", "a = dynamo\n", "Route a"},
	{"b.txt", "b 1 line\n", "b = dynamo\n", "Route b"},
	{"c.txt", "c 3 line\n", "c 3 fixed line\n", "Fix c"},
	{"d.txt", "d 2 line\n", "d = dynamo\n", "Route d"},
}

// writeSeries makes the version folder root/version pinned at v1, with one
// patch per edit as git format-patch writes them, and loads its recipe.
func writeSeries(t *testing.T, p pins, root, version string, edits []edit) *recipe.Recipe {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	gitfixture.Git(t, "", "clone", "-q", p.repo.Dir, work)
	gitfixture.Git(t, work, "checkout", "-q", p.v1)
	for _, e := range edits {
		path := filepath.Join(work, e.file)
		content := e.to
		if e.from != "" {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			content = strings.Replace(string(data), e.from, e.to, 1)
		}
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		gitfixture.Git(t, work, "add", "-A")
		gitfixture.Git(t, work, "commit", "-q", "-m", e.subject+"\n\nWhy: the test series.\n\nReason: test")
	}
	dir := filepath.Join(root, version)
	var list strings.Builder
	for _, path := range strings.Fields(gitfixture.Git(t, work, "format-patch", "--zero-commit", "--no-signature", "--full-index", "-o", dir, p.v1+"..HEAD")) {
		list.WriteString("  - " + filepath.Base(path) + "\n")
	}
	text := "upstream:\n  repository: " + p.repo.FileURL() + "\n  ref: v1\n  commit: " + p.v1 + "\npatches:\n" + list.String()
	require.NoError(t, os.WriteFile(filepath.Join(dir, recipe.FileName), []byte(text), 0o644))
	r, err := recipe.Load(dir)
	require.NoError(t, err)
	return r
}

// checkout is the source stage for the tests: a clone of the pin's
// repository at the pin's commit.
func checkout(t *testing.T) Materializer {
	return func(_ context.Context, u recipe.Upstream, dst string) (recipe.Upstream, error) {
		gitfixture.Git(t, "", "clone", "-q", u.Repository, dst)
		gitfixture.Git(t, dst, "checkout", "-q", u.Commit)
		return u, nil
	}
}

// outcomes is the rebase report reduced to patch and outcome.
func outcomes(steps []Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Patch+": "+string(s.Outcome))
	}
	return out
}

// files is every file under root with its content.
func files(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, rerr := os.ReadFile(path)
			out[path] = string(data)
			return rerr
		}
		return err
	}))
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}
