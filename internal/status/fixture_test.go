package status

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// fixture is a patches folder with version v1: one patch ("Route a",
// a.txt's first line) on an upstream of a.txt and b.txt.
type fixture struct {
	up    *gitfixture.Repo
	base  string
	root  string
	cache string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	// The rebase and pick work trees are looked up under the user cache
	// folder: the test's own.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	f := &fixture{up: gitfixture.New(t), root: t.TempDir(), cache: t.TempDir()}
	f.base = f.up.Commit(t, "upstream", map[string]string{
		"a.txt": gitfixture.NumberedLines("a", 10), "b.txt": gitfixture.NumberedLines("b", 10),
	})
	f.up.Tag(t, "v1", f.base, true)
	f.writeSeries(t, map[string]string{"a.txt": strings.Replace(gitfixture.NumberedLines("a", 10), "a 1 line\n", "a = series\n", 1)}, "Route a")
	return f
}

// writeSeries makes v1's series the one commit writing files on the
// upstream, as git format-patch writes it.
func (f *fixture) writeSeries(t *testing.T, files map[string]string, subject string) {
	t.Helper()
	dir := filepath.Join(f.root, "v1")
	require.NoError(t, os.RemoveAll(dir))
	patch := f.patchOnBase(t, files, subject, dir)
	text := "upstream:\n  repository: " + f.up.FileURL() + "\n  ref: v1\n  commit: " + f.base + "\npatches:\n  - " + filepath.Base(patch) + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, recipe.FileName), []byte(text), 0o644))
}

// patchOnBase writes into dir the patch of one commit that writes files
// on the upstream base, and returns its path.
func (f *fixture) patchOnBase(t *testing.T, files map[string]string, subject, dir string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	gitfixture.Git(t, "", "clone", "-q", f.up.Dir, work)
	gitfixture.Git(t, work, "checkout", "-q", f.base)
	gitfixture.WriteFiles(t, work, files)
	gitfixture.Git(t, work, "add", "-A")
	gitfixture.Git(t, work, "commit", "-q", "-m", subject+"\n\nWhy: the test series.\n\nReason: test")
	return strings.TrimSpace(gitfixture.Git(t, work, "format-patch", "--zero-commit", "--no-signature", "--full-index", "-o", dir, "-1", "HEAD"))
}

func (f *fixture) recipe(t *testing.T) *recipe.Recipe {
	t.Helper()
	r, err := recipe.LoadVersion(f.root, "v1")
	require.NoError(t, err)
	return r
}

// apply applies v1 into out, as `epp-build apply` does.
func (f *fixture) apply(ctx context.Context, r *recipe.Recipe, out string) error {
	_, err := apply.Recipe(ctx, r, out, apply.Options{Fetcher: apply.Fetcher{Kind: source.Git, CacheDir: f.cache}})
	return err
}

// applied is a fresh tree of v1.
func (f *fixture) applied(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, f.apply(context.Background(), f.recipe(t), out))
	return out
}

// tree gathers the status of out alone.
func (f *fixture) tree(t *testing.T, out string) (Tree, string) {
	t.Helper()
	rep, err := Gather(Request{Root: f.root, Outs: []string{out}})
	require.NoError(t, err)
	require.Empty(t, rep.Problems)
	require.Len(t, rep.Trees, 1)
	var text bytes.Buffer
	WriteText(&text, rep)
	return rep.Trees[0], text.String()
}
