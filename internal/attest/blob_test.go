package attest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

func TestSignBlobVerifiesAndRefusesOtherBytes(t *testing.T) {
	key, pub := testutil.WriteCosignKeyPair(t, t.TempDir(), "pw")
	t.Setenv(PasswordEnv, "pw")
	s, err := LoadSigner(key)
	require.NoError(t, err)
	v, err := LoadVerifier(pub)
	require.NoError(t, err)
	sums := []byte("0123  epp-build-linux-amd64\n")
	sig, err := s.SignBlob(sums)
	require.NoError(t, err)
	require.NoError(t, v.VerifyBlob(sums, sig))
	assert.Error(t, v.VerifyBlob([]byte("0124  epp-build-linux-amd64\n"), sig), "a changed byte fails")
	assert.Error(t, v.VerifyBlob(sums, []byte("not base64!")))
}
