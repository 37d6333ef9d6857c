package source

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestCommitPinIsFetchedAloneByTheGitCLI: a commit pin comes as one pack
// of that commit alone, fetched by git with its progress shown, and the
// cache entry made from it checks out the commit.
func TestCommitPinIsFetchedAloneByTheGitCLI(t *testing.T) {
	testenv.Tool(t, "git", "the commit pin fetch uses the git CLI")
	f := newFixture(t)
	f.repo.AllowFetchBySHA(t)
	url := f.repo.HTTPURL(gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir)))

	gitDir := filepath.Join(t.TempDir(), "git")
	var shown bytes.Buffer
	pack, err := fetchCommitWithGit(context.Background(), gitDir, newRemoteRepo(url), f.rel, progress.New(&shown, progress.Plain))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(pack, "pack-"), pack)
	assert.Contains(t, shown.String(), "fetch "+url)
	count := gitfixture.Git(t, "", "--git-dir", gitDir, "count-objects", "-v")
	assert.Contains(t, count, "count: 0\n", "no loose objects: the pack is kept as received")
	assert.Equal(t, f.rel, gitfixture.Git(t, "", "--git-dir", gitDir, "rev-list", "--all"), "the commit alone, without its parent")

	tree := fetch(t, Request{Pin: pin(url, f.rel, f.rel), Kind: Git, CacheDir: t.TempDir()})
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
}

func TestGitProgressCountsReceivedBytes(t *testing.T) {
	var shown bytes.Buffer
	r := progress.New(&shown, progress.Plain)
	task := r.Start("fetch x", 0)
	g := progressWriter(task)
	_, _ = g.Write([]byte("Receiving objects:  10% (1/10), 512.00 KiB | 1.00 MiB/s\rReceiving objects:  50% (5/10), 2.00 MiB | 1.00 MiB/s\r"))
	_, _ = g.Write([]byte("Receiving objects: 100% (10/10), 3.50 MiB | 1.00 MiB/s, done.\nResolving deltas: 100% (2/2), done.\n"))
	assert.Equal(t, int64(3.5*(1<<20)), g.seen)
	assert.Equal(t, []byte("fatal: not our ref"), lastLines([]byte("Receiving objects: 10% (1/10)\rfatal: not our ref\n")))
}
