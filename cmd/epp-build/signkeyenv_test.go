package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/pipeline"
	"github.com/epp-build/epp-build/internal/testutil"
)

// TestBuildSignKeyFromTheEnvironment: build --sign-key env://VAR loads the
// key from $VAR before anything is fetched (a --dry-run shows it by its
// name, never its content); an unset VAR is a usage error naming it.
func TestBuildSignKeyFromTheEnvironment(t *testing.T) {
	keyPath, _ := testutil.WriteCosignKeyPair(t, t.TempDir(), "build-env-pass")
	key, err := os.ReadFile(keyPath)
	require.NoError(t, err)
	args := []string{"build", "--version", "v0.7.0", "--image", "registry.example/dynamo/epp:v0.7.0", "--push",
		"--buildkit", "tcp://bk:1234", "--sign-key", "env://EPP_BUILD_KEY", "--dry-run=json"}

	r := inEmptyFolder(t, []string{"EPP_BUILD_KEY=" + string(key), "COSIGN_PASSWORD=build-env-pass"}, args...)
	require.Equal(t, 0, r.code, r.stderr)
	var plan pipeline.DryRun // one version: one object
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &plan), r.stdout)
	assert.Equal(t, "env://EPP_BUILD_KEY", plan.SignKey)
	assert.NotContains(t, r.stdout+r.stderr, string(key[40:80]))

	r = inEmptyFolder(t, []string{"COSIGN_PASSWORD=build-env-pass"}, args...)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "EPP_BUILD_KEY")

	r = inEmptyFolder(t, []string{"EPP_BUILD_KEY=" + string(key), "COSIGN_PASSWORD=wrong"}, args...)
	assert.Equal(t, 2, r.code, "a wrong password is found before the build: %s", r.stderr)
	assert.NotContains(t, r.stdout+r.stderr, string(key[40:80]))
}
