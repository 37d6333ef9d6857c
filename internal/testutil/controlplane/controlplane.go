// Package controlplane starts a real Kubernetes control plane for tests:
// etcd and kube-apiserver on loopback, each with free ports and its own
// temporary folder, reachable with a bearer token that may do everything.
// scripts/install-test-deps.sh installs both binaries (kube-apiserver built
// from the k8s.io/kubernetes module, etcd from Debian's etcd-server).
package controlplane

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testenv"
)

// readyTimeout bounds how long the API server may take to pass /readyz; it
// takes under 20 s on two idle cores, much longer when they are busy.
const readyTimeout = 3 * time.Minute

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	// URL is the API server's https address, https://127.0.0.1:PORT.
	URL string
	// Token is a bearer token of a user in system:masters (RBAC lets it
	// do everything).
	Token string
	// Kubeconfig is the path of a kubeconfig file for URL and Token.
	Kubeconfig string
	// CAFile is the path of the PEM bundle that verifies the API server's
	// self-signed serving certificate.
	CAFile string
	// ReadyAfter is how long the API server took from start to /readyz.
	ReadyAfter time.Duration

	etcd, apiserver *process
	tls             *tls.Config
}

// Binaries are the paths of the control plane's executables.
type Binaries struct {
	APIServer, Etcd string
}

// Find locates kube-apiserver and etcd on PATH, in GOPATH/bin (where the
// install script puts kube-apiserver) or, for etcd, at /usr/bin/etcd
// (Debian's package), or stops the test through testenv.Require.
func Find(t testing.TB) Binaries {
	t.Helper()
	var b Binaries
	var err error
	if b.APIServer, err = findTool("kube-apiserver"); err != nil {
		testenv.Require(t, "kube-apiserver", err.Error())
	}
	if b.Etcd, err = findTool("etcd"); err != nil {
		testenv.Require(t, "etcd", err.Error())
	}
	return b
}

// Assets returns a folder usable as controller-runtime envtest's
// KUBEBUILDER_ASSETS: it holds kube-apiserver and etcd (links to the
// installed ones). envtest only records kubectl's path and never runs it
// unless a test asks for it, so there is none.
func Assets(t testing.TB) string {
	t.Helper()
	b := Find(t)
	dir := t.TempDir()
	for name, target := range map[string]string{"kube-apiserver": b.APIServer, "etcd": b.Etcd} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatalf("linking %s into the envtest assets: %v", name, err)
		}
	}
	return dir
}

// Start starts etcd and kube-apiserver, waits until the API server passes
// /readyz and serves the default namespace, and stops both (by PID) when
// the test ends. It skips the test (fails under EPP_BUILD_REQUIRE_ALL=1)
// when a binary is missing.
func Start(t testing.TB) *ControlPlane {
	t.Helper()
	b := Find(t)
	// A free port may be taken by someone else between probing and
	// binding it; a start that fails that way is retried on new ports.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		cp, err := start(b, t.TempDir())
		if err == nil {
			t.Cleanup(cp.Stop)
			t.Logf("control plane at %s ready after %s", cp.URL, cp.ReadyAfter.Round(time.Millisecond))
			return cp
		}
		lastErr = err
		if !errors.Is(err, errPortTaken) {
			break
		}
	}
	t.Fatalf("starting the control plane: %v", lastErr)
	return nil
}

// Stop ends kube-apiserver, then etcd: SIGTERM, SIGKILL after a grace
// period. It is safe to call more than once.
func (cp *ControlPlane) Stop() {
	cp.apiserver.stop()
	cp.etcd.stop()
}

// PIDs are the process IDs of kube-apiserver and etcd.
func (cp *ControlPlane) PIDs() []int {
	return []int{cp.apiserver.pid(), cp.etcd.pid()}
}

// HTTPClient returns a client that trusts the API server's certificate and
// sends the bearer token with every request.
func (cp *ControlPlane) HTTPClient() *http.Client {
	return &http.Client{
		Timeout: 30 * time.Second,
		Transport: &bearer{token: cp.Token, next: &http.Transport{
			TLSClientConfig: cp.tls.Clone(),
		}},
	}
}

// Do sends a request with a JSON body (nil for none) to the API server and
// returns the status code and body.
func (cp *ControlPlane) Do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, cp.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cp.HTTPClient().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, err = out.ReadFrom(resp.Body)
	return resp.StatusCode, out.Bytes(), err
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// kubeconfig renders a kubeconfig for one cluster, user and context.
func kubeconfig(server string, ca []byte, token string) []byte {
	return []byte(strings.Join([]string{
		"apiVersion: v1",
		"kind: Config",
		"clusters:",
		"- name: test",
		"  cluster:",
		"    server: " + server,
		"    certificate-authority-data: " + base64.StdEncoding.EncodeToString(ca),
		"users:",
		"- name: admin",
		"  user:",
		"    token: " + token,
		"contexts:",
		"- name: test",
		"  context:",
		"    cluster: test",
		"    user: admin",
		"current-context: test",
		"",
	}, "\n"))
}
