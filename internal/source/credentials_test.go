package source

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// echoCredentials writes what a careless server's error page says about
// the request's credentials: user:secret, the bare secret, and the URL
// with them in it, none of which the generic patterns can recognise.
func echoCredentials(w http.ResponseWriter, r *http.Request, status int) {
	user, secret, _ := r.BasicAuth()
	w.WriteHeader(status)
	fmt.Fprintf(w, "login %s:%s refused\npassword %q is wrong\nretry at http://%s:%s@%s%s\n", user, secret, secret, user, secret, r.Host, r.URL.Path)
}

// assertNoCredential fails when msg holds secret in any form a server
// could have repeated it in.
func assertNoCredential(t *testing.T, msg, user, secret string) {
	t.Helper()
	assert.NotContains(t, msg, secret)
	assert.NotContains(t, msg, base64.StdEncoding.EncodeToString([]byte(user+":"+secret)))
	assert.NotContains(t, msg, base64.StdEncoding.EncodeToString([]byte(secret)))
}

// TestGitErrorBodyEchoingTheCredentialIsMasked: a git server refusing the
// credential in the URL repeats it in its body; the fetch error shows
// the body, but not the credential.
func TestGitErrorBodyEchoingTheCredentialIsMasked(t *testing.T) {
	f := newFixture(t)
	h := gitfixture.Handler(t, filepath.Dir(f.repo.Dir))
	const wrong = "wr0ng-git-passw0rd"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); ok && u == gitUser && p == gitSecret {
			h.ServeHTTP(w, r)
			return
		}
		echoCredentials(w, r, http.StatusUnauthorized)
	}))
	t.Cleanup(srv.Close)
	url := withUserinfo(f.repo.HTTPURL(srv.URL), gitUser, wrong)
	_, err := Fetch(context.Background(), Request{Pin: pin(url, "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "login "+gitUser+":xxxxx refused", "the body is still shown")
	assertNoCredential(t, msg, gitUser, wrong)
}

// TestGitTokenEchoedByServerIsMasked: https://TOKEN@host sends the token
// as the user name; a body repeating it is masked too.
func TestGitTokenEchoedByServerIsMasked(t *testing.T) {
	f := newFixture(t)
	const token = "ghp_t0kenEchoedBack"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		echoCredentials(w, r, http.StatusForbidden)
	}))
	t.Cleanup(srv.Close)
	url := strings.Replace(f.repo.HTTPURL(srv.URL), "http://", "http://"+token+"@", 1)
	_, err := Fetch(context.Background(), Request{Pin: pin(url, "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), token)
}

// TestGoProxyErrorBodyEchoingGOPROXYCredentialIsMasked: the credential in
// GOPROXY's userinfo, repeated by the proxy's error body, is masked.
func TestGoProxyErrorBodyEchoingGOPROXYCredentialIsMasked(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
		echoCredentials(w, r, http.StatusBadGateway)
		return false
	}
	const user, secret = "proxy-user", "pr0xy-s3cret-value"
	t.Setenv("GOENV", "off")
	t.Setenv("GOPROXY", "http://"+user+":"+secret+"@"+strings.TrimPrefix(proxy.URL, "http://"))
	_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "502 Bad Gateway: login "+user+":xxxxx refused")
	assertNoCredential(t, msg, user, secret)
}

// TestGoProxyErrorBodyEchoingNetrcCredentialIsMasked: a credential from
// netrc is never in any URL the tool shows, yet the proxy may repeat it.
func TestGoProxyErrorBodyEchoingNetrcCredentialIsMasked(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
		echoCredentials(w, r, http.StatusInternalServerError)
		return false
	}
	const user, secret = "netrc-user", "n3trc-s3cret-value"
	netrc := filepath.Join(t.TempDir(), "netrc")
	require.NoError(t, os.WriteFile(netrc, []byte("machine 127.0.0.1 login "+user+" password "+secret+"\n"), 0o600))
	t.Setenv("GOENV", "off")
	t.Setenv("GOAUTH", "")
	t.Setenv("NETRC", netrc)
	t.Setenv("GOPROXY", proxy.URL)
	_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "500 Internal Server Error: login "+user+":xxxxx refused")
	assertNoCredential(t, msg, user, secret)
}
