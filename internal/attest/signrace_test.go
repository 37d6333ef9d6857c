//go:build integration

package attest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// TestConcurrentSignersBothVerify: two signers, keys A and B, sign one
// index at once, each reading the .att tag before either writes it (the
// hook lines them up there, where the race does harm). Both end up
// verifiable, every round; an unguarded read, append, push loses one of
// the two signatures in each.
func TestConcurrentSignersBothVerify(t *testing.T) {
	requireRegistry(t)
	ctx := context.Background()
	var signers [2]*Signer
	var pubs [2]*Verifier
	for i := range signers {
		signers[i], pubs[i] = loadKeyPair(t)
	}
	t.Cleanup(func() { beforeAttestationWrite = nil })

	for round := range 10 {
		ref, img := signableIndex(t, fmt.Sprintf("dynamo/epp-cosign-%d", round))
		bothRead := testutil.NewBarrier(t, len(signers))
		beforeAttestationWrite = func(attempt int) {
			if attempt == 0 {
				bothRead.Arrive()
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, len(signers))
		for i, s := range signers {
			wg.Go(func() { _, errs[i] = SignReport(ctx, img, s, ro) })
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, signer %d", round, i)
		}
		for i, pub := range pubs {
			_, err := VerifySigned(ctx, ref, ro, pub)
			require.NoError(t, err, "round %d: the signature by key %d was lost", round, i)
		}
	}
}

// TestSignGivesUpWhenTheTagNeverHoldsStill: another writer moving the
// .att tag between every read and write makes sign fail, after a bounded
// number of attempts, with an *AttestationRaceError, and leaves that
// writer's image in place rather than overwriting it.
func TestSignGivesUpWhenTheTagNeverHoldsStill(t *testing.T) {
	requireRegistry(t)
	ctx := context.Background()
	signer, pub := loadKeyPair(t)
	ref, img := signableIndex(t, "dynamo/epp-cosign-busy")
	repo, err := name.NewRepository(img.Repository, name.Insecure)
	require.NoError(t, err)
	tag, err := AttestationTag(repo, img.IndexDigest)
	require.NoError(t, err)

	base, settle := attestationRetryBase, attestationSettle
	attestationRetryBase, attestationSettle = time.Millisecond, time.Millisecond
	t.Cleanup(func() { attestationRetryBase, attestationSettle, beforeAttestationWrite = base, settle, nil })
	attempts := 0
	var last string
	beforeAttestationWrite = func(int) {
		attempts++
		other, err := random.Image(64, 1)
		require.NoError(t, err)
		require.NoError(t, remote.Write(tag, other))
		d, err := other.Digest()
		require.NoError(t, err)
		last = d.String()
	}

	_, err = SignReport(ctx, img, signer, ro)
	var race *AttestationRaceError
	require.ErrorAs(t, err, &race)
	assert.Equal(t, maxAttestationWrites, attempts)
	assert.Equal(t, tag.String(), race.Tag)
	now, err := headDigest(tag, nil)
	require.NoError(t, err)
	assert.Equal(t, last, now, "the other writer's image is left in place")
	_, err = VerifySigned(ctx, ref, ro, pub)
	var ve *VerifyError
	require.ErrorAs(t, err, &ve, "no signature was stored")
}

// loadKeyPair is a fresh cosign key pair (no password), loaded.
func loadKeyPair(t *testing.T) (*Signer, *Verifier) {
	t.Helper()
	t.Setenv(PasswordEnv, "")
	key, pubPath := testutil.WriteCosignKeyPair(t, t.TempDir(), "")
	s, err := LoadSigner(key)
	require.NoError(t, err)
	pub, err := LoadVerifier(pubPath)
	require.NoError(t, err)
	return s, pub
}

// signableIndex pushes an index with its report to repo and returns its
// digest reference and the report read back, ready to sign.
func signableIndex(t *testing.T, repo string) (string, *Image) {
	t.Helper()
	repository, idx := pushIndex(t, repo, map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	attach(t, repository, idx)
	dgst, err := idx.Digest()
	require.NoError(t, err)
	ref := repository + "@" + dgst.String()
	img, err := Verify(context.Background(), ref, ro)
	require.NoError(t, err)
	return ref, img
}
