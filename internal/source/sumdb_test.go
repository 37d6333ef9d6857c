package source

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/sumdb"
	"golang.org/x/mod/sumdb/note"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

const testSumDBName = "sum.example.test"

// serveSumDB makes the fake proxy also proxy a checksum database (signed
// with a key made here) that records hash for the fake module version, as
// proxy.golang.org proxies sum.golang.org under /sumdb/<name>/. It returns
// the database's verifier key, a GOSUMDB value.
func serveSumDB(t *testing.T, proxy *fakeProxy, hash string) string {
	t.Helper()
	skey, vkey, err := note.GenerateKey(rand.Reader, testSumDBName)
	require.NoError(t, err)
	db := sumdb.NewServer(sumdb.NewTestServer(skey, func(path, vers string) ([]byte, error) {
		if path != fakeModule || vers != fakeVersion {
			return nil, fmt.Errorf("%s@%s: not found", path, vers)
		}
		return []byte(fmt.Sprintf("%s %s %s\n%s %s/go.mod h1:%s=\n", path, vers, hash, path, vers, strings.Repeat("B", 43))), nil
	}))
	prefix := "/sumdb/" + testSumDBName
	handler := http.StripPrefix(prefix, db)
	proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case r.URL.Path == prefix+"/supported":
			return false // 200, empty
		case strings.HasPrefix(r.URL.Path, prefix+"/"):
			handler.ServeHTTP(w, r)
			return false
		}
		return true
	}
	return vkey
}

// sumEnv points the go settings at the fake proxy and database.
func sumEnv(t *testing.T, proxy *fakeProxy, gosumdb string) {
	t.Setenv("GOPROXY", proxy.URL)
	t.Setenv("GOSUMDB", gosumdb)
	for _, k := range []string{"GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOFLAGS"} {
		t.Setenv(k, "")
	}
}

func TestGoProxyWithoutOriginIsTakenWhenTheChecksumDatabaseConfirmsItsHash(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, "")
	sumEnv(t, proxy, serveSumDB(t, proxy, proxy.hash))
	cache := t.TempDir()

	tree, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: cache})
	require.NoError(t, err)
	assert.Equal(t, f.rel, tree.Commit)
	assert.Contains(t, tree.Origin, "no Origin: commit not stated by the proxy; hash confirmed by checksum database "+testSumDBName)
	msg := gitfixture.Git(t, "", "--git-dir", tree.GitDir, "log", "-1", "--format=%B", tree.BaseCommit)
	assert.Contains(t, msg, "The module proxy did not state the commit it built this version from")
	assert.Contains(t, msg, "upstream.moduleHash, "+proxy.hash+", and checksum database "+testSumDBName+" records\nthat hash for "+fakeModule+"@"+fakeVersion+" (looked up via "+proxy.URL+"/sumdb/"+testSumDBName+")")
	assert.Contains(t, msg, "the proxy did not confirm it")
	latest, err := os.ReadFile(filepath.Join(cache, "sumdb", testSumDBName, "latest"))
	require.NoError(t, err, "the database's tree head is kept, to catch a forked log next time")
	assert.Contains(t, string(latest), testSumDBName)
}

func TestGoProxyWithoutOriginIsRefusedWhenNothingConfirmsItsHash(t *testing.T) {
	f := newFixture(t)
	for name, tc := range map[string]struct {
		env  func(t *testing.T, proxy *fakeProxy)
		want string
	}{
		"GOSUMDB=off": {func(t *testing.T, proxy *fakeProxy) { sumEnv(t, proxy, "off") }, "GOSUMDB=off: not checked against a checksum database"},
		"GONOSUMDB": {func(t *testing.T, proxy *fakeProxy) {
			sumEnv(t, proxy, serveSumDB(t, proxy, proxy.hash))
			t.Setenv("GONOSUMDB", "example.com")
		}, "example.com/up matches GONOSUMDB=example.com"},
		"GOPRIVATE": {func(t *testing.T, proxy *fakeProxy) {
			sumEnv(t, proxy, serveSumDB(t, proxy, proxy.hash))
			t.Setenv("GOPRIVATE", "example.com/up")
			t.Setenv("GONOPROXY", "none") // the proxy may serve it, the database is not asked
		}, "matches GOPRIVATE=example.com/up"},
		"database records another hash": {func(t *testing.T, proxy *fakeProxy) {
			sumEnv(t, proxy, serveSumDB(t, proxy, "h1:"+strings.Repeat("C", 43)+"="))
		}, "records example.com/up@v1.0.0 as h1:CCCC"},
		"database unreachable": {func(t *testing.T, proxy *fakeProxy) {
			_, vkey, err := note.GenerateKey(rand.Reader, testSumDBName)
			require.NoError(t, err)
			sumEnv(t, proxy, vkey+" http://127.0.0.1:1")
		}, "checksum database " + testSumDBName + " (via http://127.0.0.1:1)"},
		"database signed with another key": {func(t *testing.T, proxy *fakeProxy) {
			serveSumDB(t, proxy, proxy.hash)
			_, other, err := note.GenerateKey(rand.Reader, testSumDBName)
			require.NoError(t, err)
			sumEnv(t, proxy, other)
		}, "checksum database " + testSumDBName},
	} {
		t.Run(name, func(t *testing.T) {
			proxy := newFakeProxy(t, f, "")
			tc.env(t, proxy)
			cache := t.TempDir()
			_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: cache})
			require.Error(t, err)
			t.Log(err)
			assert.Contains(t, err.Error(), "has no Origin")
			assert.Contains(t, err.Error(), "refusing it (use the git source)")
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, cacheEntries(t, cache))
		})
	}
}
