package attest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// SignBlob signs data as `cosign sign-blob --key` does: the key's
// signature over the SHA-256 of data (ASN.1 DER for ECDSA), base64
// encoded, so `cosign verify-blob --key cosign.pub --signature FILE`
// accepts it.
func (s *Signer) SignBlob(data []byte) ([]byte, error) {
	sig, err := s.sv.SignMessage(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return []byte(base64.StdEncoding.EncodeToString(sig)), nil
}

// VerifyBlob checks a signature SignBlob (or cosign sign-blob) made.
func (v *Verifier) VerifyBlob(data, signature []byte) error {
	sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(signature)))
	if err != nil {
		return fmt.Errorf("signature is not base64: %w", err)
	}
	if err := v.v.VerifySignature(bytes.NewReader(sig), bytes.NewReader(data)); err != nil {
		return fmt.Errorf("signature does not verify with %s: %w", v.Path, err)
	}
	return nil
}
