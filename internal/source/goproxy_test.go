package source

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deadURL is a git URL nobody listens on.
func deadURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/upstream"
	srv.Close()
	return url
}

// TestAutoFallsBackToGoProxy: git is unreachable, so auto uses the module
// proxy, says so in one notice, and produces a clean work tree of the
// module's files on a synthesized commit.
func TestAutoFallsBackToGoProxy(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	t.Setenv("GOPROXY", proxy.URL)
	// Long enough that a notice cut at a fixed width loses the cause.
	url := deadURL(t) + strings.Repeat("/a-long-path", 12)
	var notes noticeLog
	req := Request{Pin: proxy.pin(url, f.rel), CacheDir: t.TempDir(), Notice: notes.notice}
	tree := fetch(t, req)

	require.Len(t, notes.all(), 1)
	note := notes.all()[0]
	host := strings.TrimPrefix(url, "http://")
	host = host[:strings.Index(host, "/")]
	assert.True(t, strings.HasPrefix(note, "git fetch from "+host+" failed ("), note)
	assert.True(t, strings.HasSuffix(note, "connection refused); using the Go module proxy"), "the notice keeps the cause: %s", note)
	assert.LessOrEqual(t, len(note), 160, "one line")

	assert.Equal(t, GoProxy, tree.Via)
	assert.Equal(t, f.rel, tree.Commit)
	assert.NotEqual(t, f.rel, tree.BaseCommit)
	assert.True(t, proxy.infoTime.Equal(tree.Time), "time %v", tree.Time)

	dst := filepath.Join(t.TempDir(), "work")
	require.NoError(t, tree.Materialize(context.Background(), dst))
	requireWorkTree(t, dst, tree.BaseCommit, nil, "")
	assert.Equal(t, "false", gitfixture.Git(t, dst, "rev-parse", "--is-shallow-repository"))
	assert.Equal(t, "epp-build <epp-build@invalid> epp-build <epp-build@invalid> 1753294011",
		gitfixture.Git(t, dst, "show", "-s", "--format=%an <%ae> %cn <%ce> %ct", "HEAD"))
	msg := gitfixture.Git(t, dst, "show", "-s", "--format=%B", "HEAD")
	assert.Contains(t, msg, fakeModule+"@"+fakeVersion)
	assert.Contains(t, msg, f.rel)
	assert.Contains(t, msg, "start with #! are made executable")

	// The tree holds exactly the zip's files: the nested module and the
	// symlink are gone, as on the real proxy; the script is executable.
	files := strings.Split(gitfixture.Git(t, dst, "ls-files"), "\n")
	want := proxy.zipFiles(t)
	sort.Strings(want)
	assert.Equal(t, want, files)
	assert.NotContains(t, files, "conformance/go.mod")
	assert.NotContains(t, files, "docs/link")
	assert.Equal(t, "100755", strings.Fields(gitfixture.Git(t, dst, "ls-files", "-s", "hack/build.sh"))[0])
	// Same content as upstream for what is there.
	assert.Equal(t, f.repo.Git(t, "rev-parse", f.rel+":pkg"), gitfixture.Git(t, dst, "rev-parse", "HEAD:pkg"))

	// Warm: served from the cache, no proxy traffic, no notice beyond the
	// git failure.
	before := proxy.requests.Load()
	req.Kind = GoProxy
	again := fetch(t, req)
	assert.Equal(t, tree.BaseCommit, again.BaseCommit)
	assert.Equal(t, before, proxy.requests.Load())
}

// TestAutoDoesNotFallBackOnMismatch: a moved tag is an error, not a reason
// to try the module proxy.
func TestAutoDoesNotFallBackOnMismatch(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.old)
	t.Setenv("GOPROXY", proxy.URL)
	_, err := Fetch(context.Background(), Request{Pin: proxy.pin(f.repo.FileURL(), f.old), CacheDir: t.TempDir()})
	var mm *MismatchError
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, f.rel, mm.Got)
	assert.Zero(t, proxy.requests.Load())
}

func TestAutoWithoutModuleReportsGitError(t *testing.T) {
	url := deadURL(t)
	_, err := Fetch(context.Background(), Request{Pin: pin(url, "v1.0.0", strings.Repeat("a", 40)), CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), url)
	assert.Contains(t, err.Error(), "no Go module proxy fallback")
}

func TestGoProxyHashMismatch(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	t.Setenv("GOPROXY", proxy.URL)
	p := proxy.pin("", f.rel)
	p.ModuleHash = "h1:" + strings.Repeat("A", 43) + "="
	cache := t.TempDir()
	_, err := Fetch(context.Background(), Request{Pin: p, Kind: GoProxy, CacheDir: cache})
	require.Error(t, err)
	assert.Contains(t, err.Error(), proxy.hash)
	assert.Contains(t, err.Error(), p.ModuleHash)
	assert.Empty(t, cacheEntries(t, cache))
}

func TestGoProxyOriginMismatch(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.old)
	t.Setenv("GOPROXY", proxy.URL)
	_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
	var mm *MismatchError
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, f.rel, mm.Want)
	assert.Equal(t, f.old, mm.Got)
	assert.Equal(t, fakeModule+"@"+fakeVersion, mm.Ref)
}

func TestGoProxyWithoutOriginRefused(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, "")
	t.Setenv("GOPROXY", proxy.URL)
	t.Setenv("GOSUMDB", "off") // nothing to confirm the zip's hash with
	_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has no Origin")
	assert.Contains(t, err.Error(), f.rel)
}

func TestGoProxyNeedsModuleFields(t *testing.T) {
	_, err := Fetch(context.Background(), Request{Pin: pin("", "v1", strings.Repeat("b", 40)), Kind: GoProxy, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "upstream.module")
}

// TestGOPROXYListSemantics: "," moves on only after 404/410, "|" after
// any error; "off" stops; "direct" serves nothing here.
func TestGOPROXYListSemantics(t *testing.T) {
	f := newFixture(t)
	good := newFakeProxy(t, f, f.rel)
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "nope", code)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	gone, broken := status(http.StatusGone), status(http.StatusInternalServerError)
	cases := []struct {
		goproxy string
		ok      bool
		errHas  string
	}{
		{gone + "," + good.URL, true, ""},
		{broken + "|" + good.URL, true, ""},
		{broken + "," + good.URL, false, "500"},
		{gone + ",off", false, "GOPROXY=off"},
		{"direct", false, "use the git source"},
		{gone + "," + good.URL + "/", true, ""},
	}
	for _, c := range cases {
		t.Run(c.goproxy, func(t *testing.T) {
			t.Setenv("GOPROXY", c.goproxy)
			tree, err := Fetch(context.Background(), Request{Pin: good.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
			if c.ok {
				require.NoError(t, err)
				assert.Equal(t, GoProxy, tree.Via)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.errHas)
		})
	}
}

// TestGONOPROXYAndGOPRIVATE: a module the go command would fetch from
// version control is not asked of any proxy; GONOPROXY overrides GOPRIVATE
// and "none" clears it.
func TestGONOPROXYAndGOPRIVATE(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		gonoproxy, goprivate string
		refusedBy            string
	}{
		{"", "example.com", "GOPRIVATE=example.com"},
		{"", "other.org,example.com/up", "GOPRIVATE=other.org,example.com/up"},
		{"*.com", "", "GONOPROXY=*.com"},
		{"none", "example.com", ""},
		{"other.org", "example.com", ""},
		{"", "example.com/upper", ""},
	}
	for _, c := range cases {
		t.Run(c.gonoproxy+"|"+c.goprivate, func(t *testing.T) {
			proxy := newFakeProxy(t, f, f.rel)
			t.Setenv("GOENV", "off")
			t.Setenv("GOPROXY", proxy.URL)
			t.Setenv("GONOPROXY", c.gonoproxy)
			t.Setenv("GOPRIVATE", c.goprivate)
			cache := t.TempDir()
			tree, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: cache})
			if c.refusedBy == "" {
				require.NoError(t, err)
				assert.Equal(t, GoProxy, tree.Via)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), fakeModule+" matches "+c.refusedBy)
			assert.Contains(t, err.Error(), "--source git")
			assert.Zero(t, proxy.requests.Load(), "no proxy is asked")
			assert.Empty(t, cacheEntries(t, cache))
		})
	}
}

func TestParseGOPROXYRejectsJunk(t *testing.T) {
	_, err := parseGOPROXY("ftp://x")
	require.Error(t, err)
	_, err = parseGOPROXY(" , ")
	require.Error(t, err)
	got, err := parseGOPROXY("https://a|https://u:pw@b/,direct")
	require.NoError(t, err)
	assert.Equal(t, []proxyEntry{
		{url: "https://a", shown: "https://a", anyError: true},
		{url: "https://u:pw@b", shown: "https://u:xxxxx@b"},
		{url: "direct", shown: "direct"},
	}, got)
}

// A proxy that wants credentials gets them from GOPROXY's userinfo or from
// netrc; the password never appears in an error, a notice or the cache.
func TestGoProxyCredentials(t *testing.T) {
	const login, secret = "release-bot", "s3cret-token"
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if u, p, ok := r.BasicAuth(); ok && u == login && p == secret {
			return true
		}
		http.Error(w, "who are you", http.StatusUnauthorized)
		return false
	}
	host := strings.TrimPrefix(proxy.URL, "http://")
	withUser := func(password string) string { return "http://" + login + ":" + password + "@" + host }
	netrc := filepath.Join(t.TempDir(), "netrc")
	require.NoError(t, os.WriteFile(netrc, []byte("machine example.org login x password y\nmachine 127.0.0.1\n  login "+login+"\n  password "+secret+"\n"), 0o600))
	cases := []struct {
		name, goproxy, netrc string
		ok                   bool
	}{
		{"userinfo in GOPROXY", withUser(secret), "", true},
		{"netrc", proxy.URL, netrc, true},
		{"no credentials", proxy.URL, "", false},
		{"wrong password", withUser("not-" + secret), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOENV", "off")
			t.Setenv("GOPROXY", c.goproxy)
			t.Setenv("NETRC", c.netrc)
			if c.netrc == "" {
				t.Setenv("NETRC", filepath.Join(t.TempDir(), "none"))
			}
			cache := t.TempDir()
			var notes noticeLog
			_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: cache, Notice: notes.notice})
			if c.ok {
				require.NoError(t, err)
				testutil.AssertNoSecretUnder(t, cache, secret)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "401")
				assert.Contains(t, err.Error(), "wants credentials")
				assert.NotContains(t, err.Error(), secret)
			}
			for _, n := range notes.all() {
				assert.NotContains(t, n, secret)
			}
		})
	}
}

func TestLookupNetrc(t *testing.T) {
	text := `machine a.example login alice password one
macdef init
machine b.example login mallory password evil

machine b.example
  login bob
  password two
default login anon password none
`
	for host, want := range map[string][2]string{"a.example": {"alice", "one"}, "b.example": {"bob", "two"}, "c.example": {"anon", "none"}} {
		login, password, ok := lookupNetrc(text, host)
		require.True(t, ok, host)
		assert.Equal(t, want, [2]string{login, password}, host)
	}
	_, _, ok := lookupNetrc("machine a.example login alice password one\n", "c.example")
	assert.False(t, ok)
}

func TestParseKind(t *testing.T) {
	for in, want := range map[string]Kind{"": Auto, "auto": Auto, "GIT": Git, "goproxy": GoProxy, " path ": Path} {
		got, err := ParseKind(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParseKind("svn")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "auto, git, goproxy, path")
}

// A proxy's refusal is reported in its own words; only 401 and 403 mention
// credentials, and a 404 or 410 lets the next "," entry answer.
func TestGoProxyErrorsSayWhatTheProxySaid(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		status     int
		body, want string
		creds      bool
	}{
		{http.StatusNotFound, "not found: unknown revision 1748e829", "404 Not Found: not available on this proxy; the proxy said: not found: unknown revision 1748e829", false},
		{http.StatusGone, "gone: retracted", "410 Gone: gone from this proxy; the proxy said: gone: retracted", false},
		{http.StatusForbidden, "blocked by policy", "403 Forbidden: the proxy refused the request; the proxy said: blocked by policy (if it needs credentials: a netrc entry for 127.0.0.1", true},
		{http.StatusUnauthorized, "", "401 Unauthorized: the proxy wants credentials (a netrc entry for 127.0.0.1", true},
		{http.StatusInternalServerError, "boom", "500 Internal Server Error: boom", false},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			proxy := newFakeProxy(t, f, f.rel)
			proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
				return false
			}
			t.Setenv("GOENV", "off")
			t.Setenv("GOPROXY", proxy.URL)
			t.Setenv("NETRC", filepath.Join(t.TempDir(), "none"))
			_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			if !tc.creds {
				assert.NotContains(t, err.Error(), "credentials")
			}
			assert.Equal(t, tc.status == http.StatusNotFound || tc.status == http.StatusGone, errors.Is(err, errProxyNotFound))
		})
	}
}
