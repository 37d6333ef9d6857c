package attest

import (
	"encoding/json"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// What verify reads of one index's cosign attestation image: signing adds
// two envelopes of one signature each, so these leave room for years of
// re-signing while a tag stuffed with forged envelopes (5,000 took 239 s
// to read one by one) or an envelope with thousands of signatures is
// refused in a bounded time.
const (
	MaxEnvelopes          = 100
	MaxEnvelopeSignatures = 16
)

// tooManyEnvelopes refuses an attestation image with more DSSE envelopes
// than verify reads, before any is fetched.
func tooManyEnvelopes(m *v1.Manifest) error {
	n := 0
	for _, l := range m.Layers {
		if l.MediaType == dsseMediaType {
			n++
		}
	}
	if n > MaxEnvelopes {
		return fmt.Errorf("the cosign attestation image holds %d DSSE envelopes, over the %d verify reads; re-sign into a fresh attestation image", n, MaxEnvelopes)
	}
	return nil
}

// tooManySignatures refuses an envelope with more signatures than verify
// checks; an envelope that does not parse is left to the DSSE verifier to
// name.
func tooManySignatures(envelope []byte) error {
	var e struct {
		Signatures []json.RawMessage `json:"signatures"`
	}
	if json.Unmarshal(envelope, &e) == nil && len(e.Signatures) > MaxEnvelopeSignatures {
		return fmt.Errorf("holds %d signatures, over the %d verify checks in one envelope", len(e.Signatures), MaxEnvelopeSignatures)
	}
	return nil
}
