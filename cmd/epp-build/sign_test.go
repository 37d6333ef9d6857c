//go:build integration

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil"
)

// TestSignAndVerifyKey: verify --key exits 5 on an unsigned report; sign
// with a cosign key (password from $COSIGN_PASSWORD) makes it pass with
// the public key and still exit 5 with another key; a wrong password is
// refused before anything is pushed, without showing the password.
func TestSignAndVerifyKey(t *testing.T) {
	reg, err := imagetest.StartRegistry(t.TempDir())
	if err != nil {
		testenv.Require(t, "a registry", err.Error())
	}
	t.Cleanup(reg.Stop)
	full := []string{"https://slsa.dev/provenance/v1", attest.SPDXPredicate}
	patches := []report.Patch{{Name: "0001-add-dynamo-plugins.patch", SHA256: strings.Repeat("ab", 32)}}
	ref := pushAttested(t, reg.Host, "dynamo/epp-sign", map[string][]string{"linux/amd64": full, "linux/arm64": full}, patches)
	key, pub := testutil.WriteCosignKeyPair(t, t.TempDir(), "s3cret-pass")
	_, otherPub := testutil.WriteCosignKeyPair(t, t.TempDir(), "")
	env := []string{"DOCKER_CONFIG=" + t.TempDir(), "COSIGN_PASSWORD=s3cret-pass"}

	res := runEnv(t, t.TempDir(), env, "verify", ref, "--insecure", "--key", pub)
	assert.Equal(t, 5, res.code, res.stderr)
	assert.Contains(t, res.stderr, "is not signed")

	bad := []string{"DOCKER_CONFIG=" + t.TempDir(), "COSIGN_PASSWORD=not-the-pass"}
	res = runEnv(t, t.TempDir(), bad, "sign", ref, "--insecure", "--key", key)
	assert.Equal(t, 2, res.code, res.stderr)
	assert.Contains(t, res.stderr, "COSIGN_PASSWORD")
	assert.NotContains(t, res.stderr+res.stdout, "not-the-pass")

	res = runEnv(t, t.TempDir(), env, "sign", ref, "--insecure")
	assert.Equal(t, 2, res.code, "sign without --key is a usage error: %s", res.stderr)

	res = runEnv(t, t.TempDir(), env, "sign", ref, "--insecure", "--key", key)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, ".att")
	assert.NotContains(t, res.stdout+res.stderr, "s3cret-pass")

	res = runEnv(t, t.TempDir(), env, "verify", ref, "--insecure", "--key", pub)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "signed: the report's statement sha256:")

	res = runEnv(t, t.TempDir(), env, "verify", ref, "--insecure", "--key", otherPub)
	assert.Equal(t, 5, res.code, res.stderr)
	assert.Contains(t, res.stderr, "not signed by this key")
}

// TestCosignVerifiesOurSignature: the real cosign CLI, with a key pair it
// generated itself, verifies the report attestation epp-build signed
// (cosign verify-attestation --key, no transparency log) and refuses it
// with another key.
func TestCosignVerifiesOurSignature(t *testing.T) {
	cosign, err := imagetest.FindTool("cosign")
	if err != nil {
		// Opt-in even in CI: scripts/install-test-deps.sh builds cosign
		// only with INSTALL_COSIGN=1 (a long cold build).
		t.Skipf("cosign is not installed (INSTALL_COSIGN=1 scripts/install-test-deps.sh): %v", err)
	}
	reg, err := imagetest.StartRegistry(t.TempDir())
	if err != nil {
		testenv.Require(t, "a registry", err.Error())
	}
	t.Cleanup(reg.Stop)
	full := []string{"https://slsa.dev/provenance/v1", attest.SPDXPredicate}
	patches := []report.Patch{{Name: "0001-add-dynamo-plugins.patch", SHA256: strings.Repeat("ab", 32)}}
	ref := pushAttested(t, reg.Host, "dynamo/epp-cosign", map[string][]string{"linux/amd64": full, "linux/arm64": full}, patches)

	keys := t.TempDir()
	gen := exec.Command(cosign, "generate-key-pair")
	gen.Dir = keys
	gen.Env = append(gen.Environ(), "COSIGN_PASSWORD=pw-from-cosign")
	out, err := gen.CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, otherPub := testutil.WriteCosignKeyPair(t, t.TempDir(), "")

	env := []string{"DOCKER_CONFIG=" + t.TempDir(), "COSIGN_PASSWORD=pw-from-cosign"}
	res := runEnv(t, t.TempDir(), env, "sign", ref, "--insecure", "--key", keys+"/cosign.key")
	require.Equal(t, 0, res.code, res.stderr)

	verify := func(pub string) (string, error) {
		cmd := exec.Command(cosign, "verify-attestation", "--key", pub, "--insecure-ignore-tlog",
			"--allow-http-registry", "--type", attest.PredicateType, ref)
		cmd.Env = append(cmd.Environ(), "DOCKER_CONFIG="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out2, err := verify(keys + "/cosign.pub")
	require.NoError(t, err, "%s", out2)
	assert.Contains(t, out2, "Verification for "+ref)
	out2, err = verify(otherPub)
	assert.Error(t, err, "cosign must refuse another key: %s", out2)
}

// TestSignAndVerifyWithKeysInTheEnvironment: sign --key env://VAR and
// verify --key env://VAR take the keys' PEM from the environment, as
// cosign does; an unset variable is a usage error naming it, and the key
// never reaches the output.
func TestSignAndVerifyWithKeysInTheEnvironment(t *testing.T) {
	reg, err := imagetest.StartRegistry(t.TempDir())
	if err != nil {
		testenv.Require(t, "a registry", err.Error())
	}
	t.Cleanup(reg.Stop)
	full := []string{"https://slsa.dev/provenance/v1", attest.SPDXPredicate}
	patches := []report.Patch{{Name: "0001-add-dynamo-plugins.patch", SHA256: strings.Repeat("ab", 32)}}
	ref := pushAttested(t, reg.Host, "dynamo/epp-envkey", map[string][]string{"linux/amd64": full, "linux/arm64": full}, patches)
	keyPath, pubPath := testutil.WriteCosignKeyPair(t, t.TempDir(), "env-pass")
	key, err := os.ReadFile(keyPath)
	require.NoError(t, err)
	pub, err := os.ReadFile(pubPath)
	require.NoError(t, err)
	env := []string{"DOCKER_CONFIG=" + t.TempDir(), "COSIGN_PASSWORD=env-pass",
		"EPP_SIGN_KEY=" + string(key), "EPP_SIGN_PUB=" + string(pub)}
	secret := string(key[40:80])

	res := runEnv(t, t.TempDir(), env, "sign", ref, "--insecure", "--key", "env://EPP_UNSET_KEY")
	assert.Equal(t, 2, res.code, res.stderr)
	assert.Contains(t, res.stderr, "EPP_UNSET_KEY")

	res = runEnv(t, t.TempDir(), env, "sign", ref, "--insecure", "--key", "env://EPP_SIGN_KEY")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, ".att")
	assert.NotContains(t, res.stdout+res.stderr, secret)

	res = runEnv(t, t.TempDir(), env, "verify", ref, "--insecure", "--key", "env://EPP_SIGN_PUB")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "signed: the report's statement sha256:")

	res = runEnv(t, t.TempDir(), env, "verify", ref, "--insecure", "--key", "env://EPP_UNSET_PUB")
	assert.Equal(t, 2, res.code, res.stderr)
	assert.Contains(t, res.stderr, "EPP_UNSET_PUB")
}
