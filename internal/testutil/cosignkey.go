package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/stretchr/testify/require"
)

// WriteCosignKeyPair writes an ECDSA P-256 key pair into dir as
// `cosign generate-key-pair` does: cosign.key, the PKCS#8 private key
// encrypted with password (scrypt and secretbox) in an ENCRYPTED SIGSTORE
// PRIVATE KEY block, and cosign.pub, a PEM PUBLIC KEY. It returns both
// paths.
func WriteCosignKeyPair(t testing.TB, dir, password string) (key, pub string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	enc, err := cryptoutils.MarshalPrivateKeyToEncryptedDER(priv, func(bool) ([]byte, error) { return []byte(password), nil })
	require.NoError(t, err)
	key = filepath.Join(dir, "cosign.key")
	block := &pem.Block{Type: string(cryptoutils.EncryptedSigstorePrivateKeyPEMType), Bytes: enc}
	require.NoError(t, os.WriteFile(key, pem.EncodeToMemory(block), 0o600))
	der, err := cryptoutils.MarshalPublicKeyToPEM(priv.Public())
	require.NoError(t, err)
	pub = filepath.Join(dir, "cosign.pub")
	require.NoError(t, os.WriteFile(pub, der, 0o644))
	return key, pub
}
