package source

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

const gitUser, gitSecret = "release-bot", "s3cret-git-token"

// withUserinfo puts user:password@ into an http URL.
func withUserinfo(url, user, password string) string {
	return strings.Replace(url, "http://", "http://"+user+":"+password+"@", 1)
}

// TestGitCredentialsNeverShownOrStored: a git URL with user:token@ fetches
// with those credentials, and the token appears nowhere: not in notices,
// not in the cache, not in the work tree (.git included).
func TestGitCredentialsNeverShownOrStored(t *testing.T) {
	f := newFixture(t)
	base := gitfixture.ServeHTTPWithAuth(t, filepath.Dir(f.repo.Dir), gitUser, gitSecret)
	url := withUserinfo(f.repo.HTTPURL(base), gitUser, gitSecret)
	cache := t.TempDir()
	var notes noticeLog
	req := Request{Pin: pin("https://example.com/recipe.git", "v1.0.0", f.rel), Kind: Git, Upstream: url, CacheDir: cache, Notice: notes.notice}
	dst := filepath.Join(t.TempDir(), "work")
	tree, err := Checkout(context.Background(), req, dst)
	require.NoError(t, err)
	requireWorkTree(t, dst, f.rel, f.repo, f.rel)
	shown := withUserinfo(f.repo.HTTPURL(base), gitUser, "xxxxx")
	assert.Equal(t, shown, tree.Origin)
	assert.Equal(t, "via git from "+shown, tree.Provenance())
	desc, err := os.ReadFile(filepath.Join(dst, ".git", "description"))
	require.NoError(t, err)
	assert.Equal(t, "upstream "+f.rel+" from "+shown+"\n", string(desc))
	testutil.AssertNoSecretUnder(t, cache, gitSecret)
	testutil.AssertNoSecretUnder(t, dst, gitSecret)
	for _, n := range notes.all() {
		assert.NotContains(t, n, gitSecret)
	}
}

// TestGitAuthFailureShowsNoCredentials: a refused fetch says so without
// the password, and the server's body (which echoes the Authorization
// header) is shown only as a redacted excerpt.
func TestGitAuthFailureShowsNoCredentials(t *testing.T) {
	f := newFixture(t)
	base := gitfixture.ServeHTTPWithAuth(t, filepath.Dir(f.repo.Dir), gitUser, gitSecret)
	const wrong = "not-the-token"
	url := withUserinfo(f.repo.HTTPURL(base), gitUser, wrong)
	_, err := Fetch(context.Background(), Request{Pin: pin(url, "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "authentication required")
	assert.Contains(t, msg, "denied you sent Authorization: Basic xxxxx", "one line, credentials masked")
	assert.NotContains(t, msg, wrong)
	assert.NotContains(t, msg, base64.StdEncoding.EncodeToString([]byte(gitUser+":"+wrong)))
	assert.NotContains(t, msg, "\n")
}

// TestAutoFallbackNoticeShowsNoCredentials: the notice that git failed and
// the module proxy is used names the host, never the credentials.
func TestAutoFallbackNoticeShowsNoCredentials(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	t.Setenv("GOPROXY", proxy.URL)
	url := withUserinfo(deadURL(t), gitUser, gitSecret)
	var notes noticeLog
	cache := t.TempDir()
	tree := fetch(t, Request{Pin: proxy.pin(url, f.rel), CacheDir: cache, Notice: notes.notice})
	assert.Equal(t, GoProxy, tree.Via)
	require.Len(t, notes.all(), 1)
	assert.Regexp(t, `^git fetch from 127\.0\.0\.1:\d+ failed \(`, notes.all()[0])
	assert.NotContains(t, notes.all()[0], gitUser+":", "the host alone, no userinfo")
	assert.NotContains(t, notes.all()[0], gitSecret)
	testutil.AssertNoSecretUnder(t, cache, gitSecret)
}

// TestGoProxyErrorBodyIsExcerpted: a proxy that fails with a body echoing
// the request's Authorization header shows a status line and a short,
// redacted excerpt, never the base64 credentials.
func TestGoProxyErrorBodyIsExcerpted(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("upstream broke\x1b[2K\r\nrequest was: Authorization: " + r.Header.Get("Authorization") + "\n" + strings.Repeat("trace line\n", 100)))
		return false
	}
	host := strings.TrimPrefix(proxy.URL, "http://")
	t.Setenv("GOENV", "off")
	t.Setenv("GOPROXY", "http://"+gitUser+":"+gitSecret+"@"+host)
	_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "502 Bad Gateway: upstream broke\\x1b[2K request was: Authorization: Basic xxxxx trace line")
	assert.NotContains(t, msg, gitSecret)
	assert.NotContains(t, msg, base64.StdEncoding.EncodeToString([]byte(gitUser+":"+gitSecret)))
	assert.NotContains(t, msg, "\x1b")
	assert.NotContains(t, msg, "\n")
	assert.Less(t, strings.Count(msg, "trace line"), 30, "the body is cut short")
}
