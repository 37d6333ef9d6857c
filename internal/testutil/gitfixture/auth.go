package gitfixture

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// ServeHTTPWithAuth is ServeHTTP for clients that authenticate as
// user:password (HTTP basic). Anyone else gets a 401 whose body echoes the
// Authorization header they sent, as careless servers do, so tests can
// check that a client never shows a server's body unredacted.
func ServeHTTPWithAuth(t testing.TB, root, user, password string) string {
	t.Helper()
	h := Handler(t, root)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); ok && u == user && p == password {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte("denied\nyou sent Authorization: " + r.Header.Get("Authorization") + "\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
