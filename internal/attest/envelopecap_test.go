package attest

import (
	"fmt"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type attImage struct {
	img v1.Image
	m   *v1.Manifest
}

// attestationImage is a cosign attestation image in memory holding the
// given DSSE envelopes.
func attestationImage(t *testing.T, envelopes ...string) *attImage {
	t.Helper()
	img := empty.Image
	for _, e := range envelopes {
		var err error
		img, err = mutate.Append(img, mutate.Addendum{Layer: static.NewLayer([]byte(e), dsseMediaType), MediaType: dsseMediaType})
		require.NoError(t, err)
	}
	m, err := img.Manifest()
	require.NoError(t, err)
	return &attImage{img, m}
}

func TestVerifyReadsAtMostMaxEnvelopes(t *testing.T) {
	envelopes := make([]string, MaxEnvelopes+1)
	for i := range envelopes {
		envelopes[i] = fmt.Sprintf(`{"payloadType":"x","payload":"","signatures":[{"sig":"%d"}]}`, i)
	}
	att := attestationImage(t, envelopes...)
	_, err := signatureOver(att.img, att.m, &Verifier{Path: "cosign.pub"}, "sha256:none")
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("holds %d DSSE envelopes, over the %d verify reads", MaxEnvelopes+1, MaxEnvelopes))
}

func TestVerifyPassesOverAnEnvelopeWithTooManySignatures(t *testing.T) {
	sigs := strings.TrimSuffix(strings.Repeat(`{"sig":"AA=="},`, MaxEnvelopeSignatures+1), ",")
	att := attestationImage(t, `{"payloadType":"x","payload":"","signatures":[`+sigs+`]}`)
	_, err := signatureOver(att.img, att.m, &Verifier{Path: "cosign.pub"}, "sha256:none")
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("holds %d signatures, over the %d verify checks in one envelope", MaxEnvelopeSignatures+1, MaxEnvelopeSignatures))
}
