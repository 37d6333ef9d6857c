package attest

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// TestKeysFromTheEnvironment: env://VAR reads a cosign-encrypted private
// key and a PEM public key from the environment, as cosign does; what one
// signs the other verifies. An unset or empty variable, or env:// with no
// name, is a *KeyError naming the variable, and an error never holds the
// variable's content.
func TestKeysFromTheEnvironment(t *testing.T) {
	keyPath, pubPath := testutil.WriteCosignKeyPair(t, t.TempDir(), "env pass")
	keyPEM, err := os.ReadFile(keyPath)
	require.NoError(t, err)
	pubPEM, err := os.ReadFile(pubPath)
	require.NoError(t, err)
	t.Setenv("EPP_TEST_KEY", string(keyPEM))
	t.Setenv("EPP_TEST_PUB", string(pubPEM))
	t.Setenv(PasswordEnv, "env pass")

	s, err := LoadSigner("env://EPP_TEST_KEY")
	require.NoError(t, err)
	v, err := LoadVerifier("env://EPP_TEST_PUB")
	require.NoError(t, err)
	assert.Equal(t, "env://EPP_TEST_PUB", v.Path, "messages name the variable, not the key")
	msg := []byte("statement")
	sig, err := s.sv.SignMessage(bytes.NewReader(msg))
	require.NoError(t, err)
	require.NoError(t, v.v.VerifySignature(bytes.NewReader(sig), bytes.NewReader(msg)))

	t.Setenv("EPP_TEST_EMPTY", "")
	for _, ref := range []string{"env://EPP_TEST_EMPTY", "env://EPP_TEST_NEVER_SET", "env://"} {
		_, err := LoadSigner(ref)
		var ke *KeyError
		require.ErrorAs(t, err, &ke, ref)
		assert.Contains(t, err.Error(), ref)
		_, err = LoadVerifier(ref)
		require.ErrorAs(t, err, &ke, ref)
	}
	_, err = LoadSigner("env://EPP_TEST_NEVER_SET")
	assert.True(t, errors.Is(err, ErrKeyEnvUnset))
	assert.Contains(t, err.Error(), "$EPP_TEST_NEVER_SET")

	// A public key where a private key belongs: refused, and the
	// refusal does not echo the PEM it was given.
	_, err = LoadSigner("env://EPP_TEST_PUB")
	var ke *KeyError
	require.ErrorAs(t, err, &ke)
	assert.NotContains(t, err.Error(), string(pubPEM[30:60]))
	t.Setenv(PasswordEnv, "wrong")
	_, err = LoadSigner("env://EPP_TEST_KEY")
	require.ErrorAs(t, err, &ke)
	assert.NotContains(t, err.Error(), string(keyPEM[40:80]))
}
