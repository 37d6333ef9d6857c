package main

import (
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
)

const credUser, credSecret = "alice", "s3cret-registry-pw"

// assertNoCredential fails when the command's output holds the secret in
// any form a server or a flag error could repeat it in.
func assertNoCredential(t *testing.T, r result) {
	t.Helper()
	basic := base64.StdEncoding.EncodeToString([]byte(credUser + ":" + credSecret))
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		assert.NotContains(t, out, credSecret, "%s holds the secret", name)
		assert.NotContains(t, out, basic, "%s holds the basic-auth credential", name)
	}
}

// TestCredentialsInReferencesAreNotEchoed: a reference with user:pass@ and
// no scheme is refused as a usage error (the same message shape), but the
// password is masked wherever the refusal quotes it.
func TestCredentialsInReferencesAreNotEchoed(t *testing.T) {
	ref := credUser + ":" + credSecret + "@registry.example/dynamo/epp:v0.7.0"
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"inspect", []string{"inspect", ref}, 2, `image reference "alice:xxxxx@registry.example/dynamo/epp:v0.7.0"`},
		{"verify", []string{"verify", ref}, 2, `image reference "alice:xxxxx@registry.example/dynamo/epp:v0.7.0"`},
		{"build --image", []string{"build", "--version", "v1.0.0", "--image", ref, "--push"}, 2, `image "alice:xxxxx@registry.example/dynamo/epp:v0.7.0"`},
		{"build --cache-to", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push",
			"--cache-to", "type=registry,ref=" + credUser + ":" + credSecret + "@registry.example/dynamo/epp:cache,mode=fast"}, 2, "ref=alice:xxxxx@registry.example/dynamo/epp:cache"},
		{"build --cache-to without type", []string{"build", "--version", "v1.0.0", "--image", "127.0.0.1:5000/x:y", "--push",
			"--cache-to", "ref=" + credUser + ":" + credSecret + "@registry.example/dynamo/epp:cache,oops"}, 2, "--cache-to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runEnv(t, t.TempDir(), []string{"DOCKER_CONFIG=" + t.TempDir()}, append([]string{"--patches", t.TempDir()}, tc.args...)...)
			assert.Equal(t, tc.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, tc.want)
			assertNoCredential(t, r)
		})
	}
}

// TestRegistryErrorEchoingDockerConfigCredentialsIsMasked: a registry that
// refuses the Docker config's credentials and repeats them in its error
// body (as user:password, the bare password and the Basic header) fails
// inspect and verify as before, without showing them.
func TestRegistryErrorEchoingDockerConfigCredentialsIsMasked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
		w.WriteHeader(http.StatusUnauthorized)
		u, p, _ := r.BasicAuth()
		fmt.Fprintf(w, "denied %s:%s (password %s) you sent %s", u, p, p, strings.TrimPrefix(r.Header.Get("Authorization"), "Basic "))
	}))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	cfg := t.TempDir()
	auth := base64.StdEncoding.EncodeToString([]byte(credUser + ":" + credSecret))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"auths":{"`+host+`":{"auth":"`+auth+`"}}}`), 0o600))
	for _, cmd := range []string{"inspect", "verify"} {
		t.Run(cmd, func(t *testing.T) {
			r := runEnv(t, t.TempDir(), []string{"DOCKER_CONFIG=" + cfg}, cmd, host+"/dynamo/epp:v0.7.0", "--insecure")
			assert.Equal(t, 1, r.code, r.stderr)
			assert.Contains(t, r.stderr, "registry "+host+" refused access")
			assert.Contains(t, r.stderr, "denied alice:xxxxx", "the registry's text is still shown")
			assertNoCredential(t, r)
		})
	}
}
