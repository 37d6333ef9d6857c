package attest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPEMKeysSignWithoutAPassword: an unencrypted PEM ECDSA key (as
// openssl writes it) signs; its public half verifies.
func TestPEMKeysSignWithoutAPassword(t *testing.T) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalECPrivateKey(priv)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "key.pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600))
	s, err := LoadSigner(path)
	require.NoError(t, err)
	pub, err := s.sv.PublicKey()
	require.NoError(t, err)
	assert.True(t, priv.PublicKey.Equal(pub.(crypto.PublicKey)))

	_, err = LoadSigner(filepath.Join(t.TempDir(), "missing.key"))
	var ke *KeyError
	require.ErrorAs(t, err, &ke)
	_, err = LoadVerifier(path)
	require.ErrorAs(t, err, &ke, "a private key is not a public key")
}
