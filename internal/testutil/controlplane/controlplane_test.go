//go:build integration

package controlplane

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestStartServesAndStopsCleanly starts the control plane, writes and
// reads back an object through the REST API, and checks that Stop leaves
// neither daemon running nor its port open.
func TestStartServesAndStopsCleanly(t *testing.T) {
	cp := Start(t)
	ctx := context.Background()

	code, body, err := cp.Do(ctx, http.MethodGet, "/readyz", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, "%s", body)

	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe"},"data":{"k":"v"}}`
	code, body, err = cp.Do(ctx, http.MethodPost, "/api/v1/namespaces/default/configmaps", []byte(cm))
	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, code, "%s", body)
	code, body, err = cp.Do(ctx, http.MethodGet, "/api/v1/namespaces/default/configmaps/probe", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, "%s", body)
	var got struct {
		Metadata struct{ UID string } `json:"metadata"`
		Data     map[string]string    `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, map[string]string{"k": "v"}, got.Data)
	assert.NotEmpty(t, got.Metadata.UID, "the object was stored, not echoed")

	u, err := url.Parse(cp.URL)
	require.NoError(t, err)
	pids := cp.PIDs()
	cp.Stop()
	for _, pid := range pids {
		assert.NoDirExists(t, "/proc/"+strconv.Itoa(pid), "process %d still exists after Stop", pid)
	}
	assert.Empty(t, children(t), "a daemon outlived Stop")
	_, err = net.DialTimeout("tcp", u.Host, time.Second)
	assert.Error(t, err, "the API server's port still accepts connections")
	cp.Stop() // idempotent: the cleanup calls it again
}

// TestRequestsNeedTheToken shows that authentication and authorization
// are real: a wrong token is refused, and so is a request without one
// (anonymous may not list namespaces).
func TestRequestsNeedTheToken(t *testing.T) {
	cp := Start(t)
	for token, want := range map[string]int{"not-" + cp.Token: http.StatusUnauthorized, "": http.StatusForbidden} {
		client := cp.HTTPClient()
		client.Transport = client.Transport.(*bearer).next
		req, err := http.NewRequest(http.MethodGet, cp.URL+"/api/v1/namespaces", nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, "token %q", token)
	}
}

// TestKubeconfigNamesTheServer reads the kubeconfig back as YAML.
func TestKubeconfigNamesTheServer(t *testing.T) {
	cp := Start(t)
	data, err := os.ReadFile(cp.Kubeconfig)
	require.NoError(t, err)
	var cfg struct {
		Clusters []struct {
			Cluster struct {
				Server string `yaml:"server"`
				CA     string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
		Users []struct {
			User struct{ Token string } `yaml:"user"`
		} `yaml:"users"`
		CurrentContext string `yaml:"current-context"`
	}
	require.NoError(t, yaml.Unmarshal(data, &cfg))
	require.Len(t, cfg.Clusters, 1)
	require.Len(t, cfg.Users, 1)
	assert.Equal(t, cp.URL, cfg.Clusters[0].Cluster.Server)
	assert.Equal(t, cp.Token, cfg.Users[0].User.Token)
	assert.NotEmpty(t, cfg.CurrentContext)
	ca, err := os.ReadFile(cp.CAFile)
	require.NoError(t, err)
	caData, err := base64.StdEncoding.DecodeString(cfg.Clusters[0].Cluster.CA)
	require.NoError(t, err)
	assert.Equal(t, ca, caData)
}

// TestFailedStartLeavesNothing starts etcd with an "API server" that exits
// at once: start must report it and stop etcd.
func TestFailedStartLeavesNothing(t *testing.T) {
	b := Find(t)
	b.APIServer = "/bin/false"
	_, err := start(b, t.TempDir())
	require.ErrorContains(t, err, "exited before it was ready")
	assert.Empty(t, children(t), "etcd outlived a failed start")
}

// TestAssetsServeEnvtest checks the KUBEBUILDER_ASSETS folder holds the
// binaries envtest starts, runnable under the names it looks for.
func TestAssetsServeEnvtest(t *testing.T) {
	dir := Assets(t)
	for _, name := range []string{"kube-apiserver", "etcd"} {
		st, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err, name)
		assert.NotZero(t, st.Mode()&0o111, "%s is not executable", name)
	}
}

// children lists the processes whose parent is this test binary.
func children(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var name, ppid string
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "Name:"); ok {
				name = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "PPid:"); ok {
				ppid = strings.TrimSpace(v)
			}
		}
		if ppid == me {
			out = append(out, e.Name()+" "+name)
		}
	}
	return out
}
