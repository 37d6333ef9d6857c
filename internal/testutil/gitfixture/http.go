package gitfixture

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testenv"
)

// Handler serves every repository under root (bare or not) with the smart
// HTTP protocol through `git http-backend`. Wrap it to observe or disturb
// requests; ServeHTTP is the common case.
func Handler(t testing.TB, root string) http.Handler {
	t.Helper()
	backend := httpBackendPath(t)
	return &cgi.Handler{
		Path: backend,
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_CONFIG_NOSYSTEM=1",
		},
		InheritEnv: []string{"PATH", "HOME"},
	}
}

// ServeHTTP serves all repositories under root on 127.0.0.1 and returns the
// base URL (a repository root/x is at base+"/x"). The server stops at test
// cleanup.
func ServeHTTP(t testing.TB, root string) string {
	t.Helper()
	srv := httptest.NewServer(Handler(t, root))
	t.Cleanup(srv.Close)
	return srv.URL
}

// httpBackendPath finds git-http-backend in git's exec path.
func httpBackendPath(t testing.TB) string {
	t.Helper()
	testenv.Tool(t, "git", "the HTTP fixture runs git http-backend")
	out, err := exec.Command("git", "--exec-path").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	testenv.Require(t, "git-http-backend", "the HTTP fixture serves repositories through it")
	return ""
}
