//go:build integration

package pipeline

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// fixtureUpstream is a git repository holding the EPP fixture tree, tagged
// v1.0.0: an upstream the apply stage fetches as it fetches GAIE.
func fixtureUpstream(t *testing.T) (dir, commit string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "gaie")
	repo := gitfixture.NewAt(t, dir)
	files := map[string]string{}
	tree := fixture("epp-tree")
	require.NoError(t, filepath.WalkDir(tree, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(tree, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	}))
	commit = repo.Commit(t, "release", files)
	repo.Tag(t, "v1.0.0", commit, true)
	return dir, commit
}

// Two versions in one command: both preflights first, then both built on
// one connection to the node, each tagged with its own version and
// carrying its own version in its annotations and labels.
func TestReleaseAllBuildsEveryVersionOnOneConnection(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	upstream, commit := fixtureUpstream(t)
	fetchCache := t.TempDir()
	opt, _, _ := testOptions(t, reg.Host, "dynamo/epp-multi")
	opt.Image = reg.Host + "/dynamo/epp-multi:{{.Version}}"
	opt.Tags = []string{reg.Host + "/dynamo/epp-multi:{{.Version}}-extra"}
	opt.Platforms = platforms(t, "linux/"+runtime.GOARCH)
	opt.SBOM = "false"
	var reqs []Request
	for _, v := range []string{"v1.0.0-a", "v1.0.0-b"} {
		reqs = append(reqs, Request{
			Recipe:  &recipe.Recipe{Version: v, Upstream: recipe.Upstream{Repository: upstream, Ref: "v1.0.0", Commit: commit}},
			TreeDir: filepath.Join(t.TempDir(), "tree"),
			Apply:   apply.Options{Fetcher: apply.Fetcher{Kind: source.Path, CacheDir: fetchCache}},
		})
	}
	resolved := countResolves(t)
	built, err := ReleaseAll(context.Background(), mustResolve(t, opt), reqs)
	require.NoError(t, err)
	require.Len(t, built, 2)
	assert.Equal(t, 1, *resolved, "the options are resolved once for both versions")
	for i, v := range []string{"v1.0.0-a", "v1.0.0-b"} {
		assert.Equal(t, []string{reg.Host + "/dynamo/epp-multi:" + v, reg.Host + "/dynamo/epp-multi:" + v + "-extra"}, built[i].Tags)
		for _, tag := range []string{v, v + "-extra"} {
			idx, dgst := taggedIndex(t, reg.Host+"/dynamo/epp-multi:"+tag)
			assert.Equal(t, built[i].Report.Outputs.IndexDigest, dgst.String(), tag)
			m, err := idx.IndexManifest()
			require.NoError(t, err)
			assert.Equal(t, v, m.Annotations[OCIVersion], tag)
			assert.Equal(t, commit, m.Annotations[OCIRevision], tag)
		}
	}
	assert.NotEqual(t, built[0].Report.Outputs.IndexDigest, built[1].Report.Outputs.IndexDigest, "each version's own labels")
}
