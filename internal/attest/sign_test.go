//go:build integration

package attest

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// TestSignedReportVerifiesWithItsKeyOnly: the report signed with a cosign
// key verifies with its public key; an unsigned report, a report signed
// with another key, and a key whose password is wrong all fail, the first
// two as a *VerifyError (exit 5).
func TestSignedReportVerifiesWithItsKeyOnly(t *testing.T) {
	requireRegistry(t)
	ctx := context.Background()
	dir := t.TempDir()
	keyPath, pubPath := testutil.WriteCosignKeyPair(t, dir, "correct horse")
	otherDir := t.TempDir()
	otherKey, otherPub := testutil.WriteCosignKeyPair(t, otherDir, "")

	repository, idx := pushIndex(t, "dynamo/epp-signed", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	attach(t, repository, idx)
	dgst, err := idx.Digest()
	require.NoError(t, err)
	ref := repository + "@" + dgst.String()

	pub, err := LoadVerifier(pubPath)
	require.NoError(t, err)
	_, err = VerifySigned(ctx, ref, ro, pub)
	var ve *VerifyError
	require.ErrorAs(t, err, &ve, "an unsigned report fails verify --key")
	assert.Contains(t, err.Error(), "is not signed")

	t.Setenv(PasswordEnv, "wrong")
	_, err = LoadSigner(keyPath)
	var ke *KeyError
	require.ErrorAs(t, err, &ke)
	assert.NotContains(t, err.Error(), "wrong", "the password is never shown")

	t.Setenv(PasswordEnv, "correct horse")
	signer, err := LoadSigner(keyPath)
	require.NoError(t, err)
	img, err := Verify(ctx, ref, ro)
	require.NoError(t, err)
	tag, err := SignReport(ctx, img, signer, ro)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(tag, ":sha256-"+dgst.Hex+".att"), tag)

	got, err := VerifySigned(ctx, ref, ro, pub)
	require.NoError(t, err)
	assert.NotEmpty(t, got.Signature)
	assert.Equal(t, img.ReportStatement, got.ReportStatement)

	other, err := LoadVerifier(otherPub)
	require.NoError(t, err)
	_, err = VerifySigned(ctx, ref, ro, other)
	require.ErrorAs(t, err, &ve, "signed with another key")
	assert.Contains(t, err.Error(), "not signed by this key")

	// A second signature, by the other key, is kept beside the first:
	// each key finds its own.
	t.Setenv(PasswordEnv, "")
	second, err := LoadSigner(otherKey)
	require.NoError(t, err)
	_, err = SignReport(ctx, img, second, ro)
	require.NoError(t, err)
	_, err = VerifySigned(ctx, ref, ro, other)
	require.NoError(t, err)
	_, err = VerifySigned(ctx, ref, ro, pub)
	require.NoError(t, err)
}

// TestASignatureOverAnotherStatementDoesNotCount: an envelope the key
// signed over a different statement (an older report, say) does not vouch
// for the report the index holds now.
func TestASignatureOverAnotherStatementDoesNotCount(t *testing.T) {
	requireRegistry(t)
	ctx := context.Background()
	keyPath, pubPath := testutil.WriteCosignKeyPair(t, t.TempDir(), "pw")
	t.Setenv(PasswordEnv, "pw")
	signer, err := LoadSigner(keyPath)
	require.NoError(t, err)
	pub, err := LoadVerifier(pubPath)
	require.NoError(t, err)

	repository, idx := pushIndex(t, "dynamo/epp-resigned", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	attach(t, repository, idx)
	dgst, err := idx.Digest()
	require.NoError(t, err)
	ref := repository + "@" + dgst.String()
	img, err := Verify(ctx, ref, ro)
	require.NoError(t, err)
	// Other bytes (the same JSON and a newline): another statement blob.
	img.reportRaw = append(append([]byte(nil), img.reportRaw...), '\n')
	_, err = SignReport(ctx, img, signer, ro)
	require.NoError(t, err)

	_, err = VerifySigned(ctx, ref, ro, pub)
	var ve *VerifyError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "signed by this key over another statement")
}
