package source

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestCommitPinIsStreamedAlone: a commit pin comes as one pack of that
// commit alone, kept as received, with the bytes shown as they arrive;
// every blob of the commit is in the entry's store by the time the pack
// has arrived, and the entry checks out the commit.
func TestCommitPinIsStreamedAlone(t *testing.T) {
	testenv.Tool(t, "git", "git http-backend serves the fixture")
	f := newFixture(t)
	f.repo.AllowFetchBySHA(t)
	url := f.repo.HTTPURL(gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir)))

	var shown bytes.Buffer
	gitDir, tip, pack := streamAndCount(t, f, url, f.rel, progress.New(&shown, progress.Plain))
	assert.Equal(t, f.rel, tip.String())
	assert.Contains(t, shown.String(), "fetch "+url)
	require.NoError(t, writeBareRepo(gitDir, &entryMeta{BaseCommit: f.rel, Shallow: true, Pack: pack}))
	assert.Contains(t, gitfixture.Git(t, "", "--git-dir", gitDir, "count-objects", "-v"), "count: 0\n", "no loose objects: the pack is kept as received")
	assert.Equal(t, f.rel, gitfixture.Git(t, "", "--git-dir", gitDir, "rev-list", "--all"), "the commit alone, without its parent")
	gitfixture.Git(t, "", "--git-dir", gitDir, "fsck", "--no-dangling")
	requireFetchedTree(t, f, url, f.rel)
}

// streamAndCount streams ref from url into a fresh entry folder and checks
// that every blob of the fixture's release commit is in the store once the
// pack has arrived. It returns the git dir, the object asked for and the
// pack's name.
func streamAndCount(t *testing.T, f *fixture, url, ref string, p *progress.Reporter) (string, plumbing.Hash, string) {
	t.Helper()
	tmp := t.TempDir()
	gitDir := filepath.Join(tmp, gitDirName)
	pool, err := newEntryBlobs(tmp, nil)
	require.NoError(t, err)
	tip, pack, err := streamPack(context.Background(), gitDir, newRemoteRepo(url), ref, pool, p, defaultGitLimits())
	require.NoError(t, err)
	for _, blob := range strings.Fields(f.repo.Git(t, "ls-tree", "-r", "--object-only", f.rel)) {
		assert.True(t, pool.holds(plumbing.NewHash(blob)), "blob %s is stored when the pack has arrived", blob)
	}
	_, _, err = pool.close()
	require.NoError(t, err)
	return gitDir, tip, pack
}

// requireFetchedTree fetches ref from url into an empty cache and checks
// the entry checks out the fixture's release commit.
func requireFetchedTree(t *testing.T, f *fixture, url, ref string) {
	t.Helper()
	tree := fetch(t, Request{Pin: pin(url, ref, f.rel), Kind: Git, CacheDir: t.TempDir()})
	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
}

// TestGitServerCredentialsComeFromNetrc: a git server that wants
// credentials gets the netrc entry for its host, as git gives it, for a
// commit pin and a tag alike; without one the fetch fails saying so, and
// the password is never shown.
func TestGitServerCredentialsComeFromNetrc(t *testing.T) {
	testenv.Tool(t, "git", "git http-backend serves the fixture")
	const login, secret = "netrc-git-user", "n3trc-g1t-s3cret"
	f := newFixture(t)
	f.repo.AllowFetchBySHA(t)
	url := f.repo.HTTPURL(gitfixture.ServeHTTPWithAuth(t, filepath.Dir(f.repo.Dir), login, secret))
	netrc := filepath.Join(t.TempDir(), "netrc")

	require.NoError(t, os.WriteFile(netrc, []byte("machine example.org login x password y\n"), 0o600))
	t.Setenv("NETRC", netrc)
	_, err := Fetch(context.Background(), Request{Pin: pin(url, f.rel, f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the git server wants credentials: a netrc entry for 127.0.0.1")

	require.NoError(t, os.WriteFile(netrc, []byte("machine 127.0.0.1 login "+login+" password "+secret+"\n"), 0o600))
	for _, ref := range []string{f.rel, "v1.0.0"} {
		requireFetchedTree(t, f, url, ref)
	}
	assert.NotContains(t, err.Error(), secret)

	require.NoError(t, os.WriteFile(netrc, []byte("machine 127.0.0.1 login "+login+" password wrong-"+secret+"\n"), 0o600))
	_, err = Fetch(context.Background(), Request{Pin: pin(url, f.rel, f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the git server refused the credentials of the netrc entry for 127.0.0.1")
	assertNoCredential(t, err.Error(), login, "wrong-"+secret)
}

// TestRefPinsAreStreamed: an annotated tag, a lightweight tag and a
// branch are each asked for by what the server advertises for them (the
// tag object, for an annotated tag) and come, with every blob stored, as
// the pack arrives; a ref the server does not have is named as such.
func TestRefPinsAreStreamed(t *testing.T) {
	testenv.Tool(t, "git", "git http-backend serves the fixture")
	f := newFixture(t)
	url := f.repo.HTTPURL(gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir)))
	for _, ref := range []string{"v1.0.0", "v1.0.0-light", "refs/heads/main"} {
		t.Run(ref, func(t *testing.T) {
			_, tip, _ := streamAndCount(t, f, url, ref, nil)
			assert.Equal(t, f.repo.RevParse(t, ref), tip.String())
			requireFetchedTree(t, f, url, ref)
		})
	}
	cache := t.TempDir()
	_, err := Fetch(context.Background(), Request{Pin: pin(url, "v9.9.9", f.rel), Kind: Git, CacheDir: cache})
	require.Error(t, err)
	assert.Equal(t, "git fetch "+url+": ref v9.9.9 does not exist there (check upstream.ref)", err.Error())
	assert.Empty(t, cacheEntries(t, cache))
}
