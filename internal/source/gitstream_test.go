package source

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// TestCommitPinIsStreamedAlone: a commit pin comes as one pack of that
// commit alone, kept as received, with the bytes shown as they arrive;
// every blob is in the entry's store by the time the pack has arrived (no
// writer decodes one afterwards), and the entry checks out the commit.
func TestCommitPinIsStreamedAlone(t *testing.T) {
	testenv.Tool(t, "git", "git http-backend serves the fixture")
	f := newFixture(t)
	f.repo.AllowFetchBySHA(t)
	url := f.repo.HTTPURL(gitfixture.ServeHTTP(t, filepath.Dir(f.repo.Dir)))
	require.True(t, streamable(url))

	var decodedAfter atomic.Int64
	fileWritten = func(string) { decodedAfter.Add(1) }
	defer func() { fileWritten = nil }()
	tmp := t.TempDir()
	var shown bytes.Buffer
	m := &entryMeta{Via: Git, Commit: f.rel}
	require.NoError(t, fetchCommitStreamed(context.Background(), tmp, newRemoteRepo(url), f.rel, m, progress.New(&shown, progress.Plain)))
	fileWritten = nil
	assert.Zero(t, decodedAfter.Load(), "every blob was stored as the pack arrived")
	assert.Contains(t, shown.String(), "fetch "+url)

	gitDir := filepath.Join(tmp, gitDirName)
	assert.Contains(t, gitfixture.Git(t, "", "--git-dir", gitDir, "count-objects", "-v"), "count: 0\n", "no loose objects: the pack is kept as received")
	assert.Equal(t, f.rel, gitfixture.Git(t, "", "--git-dir", gitDir, "rev-list", "--all"), "the commit alone, without its parent")
	gitfixture.Git(t, "", "--git-dir", gitDir, "fsck", "--no-dangling")
	assert.True(t, m.Shallow)
	assert.Equal(t, f.rel, m.BaseCommit)

	tree := fetch(t, Request{Pin: pin(url, f.rel, f.rel), Kind: Git, CacheDir: t.TempDir()})
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
		tree := fetch(t, Request{Pin: pin(url, ref, f.rel), Kind: Git, CacheDir: t.TempDir()})
		dst := filepath.Join(t.TempDir(), "work")
		require.NoError(t, tree.Materialize(context.Background(), dst))
		requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	}
	assert.NotContains(t, err.Error(), secret)

	require.NoError(t, os.WriteFile(netrc, []byte("machine 127.0.0.1 login "+login+" password wrong-"+secret+"\n"), 0o600))
	_, err = Fetch(context.Background(), Request{Pin: pin(url, f.rel, f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the git server refused the credentials of the netrc entry for 127.0.0.1")
	assertNoCredential(t, err.Error(), login, "wrong-"+secret)
}
