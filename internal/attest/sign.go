package attest

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"

	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"

	"github.com/epp-build/epp-build/internal/image"
)

// PasswordEnv is the environment variable a signing key's password is read
// from, as cosign reads it. The password is never printed or stored.
const PasswordEnv = "COSIGN_PASSWORD"

// KeyError is a signing or verification key that cannot be used.
type KeyError struct {
	Path string
	Err  error
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("key %s: %v", e.Path, e.Err)
}

func (e *KeyError) Unwrap() error { return e.Err }

// Signer signs the report attestation. Its key is cosign's encrypted
// format (cosign generate-key-pair: ENCRYPTED SIGSTORE PRIVATE KEY, the
// password in COSIGN_PASSWORD) or an unencrypted PEM key (PKCS#8, EC or
// PKCS#1): ECDSA, RSA or Ed25519.
type Signer struct {
	sv signature.SignerVerifier
}

// LoadSigner reads the private key at path, or in $VAR when path is
// env://VAR; an encrypted key's password comes from $COSIGN_PASSWORD
// (empty when unset, as cosign takes it).
func LoadSigner(path string) (*Signer, error) {
	raw, err := readKey(path)
	if err != nil {
		return nil, err
	}
	pass := func(bool) ([]byte, error) { return []byte(os.Getenv(PasswordEnv)), nil }
	pk, err := cryptoutils.UnmarshalPEMToPrivateKey(raw, pass)
	if err != nil {
		// The library's text names the failure (a wrong password says
		// "decrypt"); it never holds the password.
		return nil, &KeyError{Path: path, Err: fmt.Errorf("%w (an encrypted key's password is read from $%s)", err, PasswordEnv)}
	}
	// SHA-256, the hash cosign verifies with by default.
	sv, err := signature.LoadSignerVerifier(pk, crypto.SHA256)
	if err != nil {
		return nil, &KeyError{Path: path, Err: err}
	}
	return &Signer{sv: sv}, nil
}

// Verifier is the signer's public half, to check what it signed.
func (s *Signer) Verifier() *Verifier {
	return &Verifier{v: s.sv, Path: "(the signing key)"}
}

// Verifier checks signatures with a public key.
type Verifier struct {
	v    signature.Verifier
	Path string
}

// LoadVerifier reads the PEM public key at path, or in $VAR when path is
// env://VAR (cosign.pub as cosign generate-key-pair writes it, or any PEM
// PUBLIC KEY).
func LoadVerifier(path string) (*Verifier, error) {
	raw, err := readKey(path)
	if err != nil {
		return nil, err
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(raw)
	if err != nil {
		return nil, &KeyError{Path: path, Err: fmt.Errorf("%w (want a PEM public key, such as cosign.pub)", err)}
	}
	v, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, &KeyError{Path: path, Err: err}
	}
	return &Verifier{v: v, Path: path}, nil
}

// errNoKey is a Verifier or Signer used without a key.
var errNoKey = errors.New("no key")

// VerifySigned is Verify that also requires the report to be signed with
// v (a *VerifyError when it is not).
func VerifySigned(ctx context.Context, ref string, ro image.RegistryOptions, v *Verifier) (*Image, error) {
	img, err := Verify(ctx, ref, ro)
	if err != nil {
		return nil, err
	}
	if err := img.CheckSignature(ctx, v, ro); err != nil {
		return nil, err
	}
	return img, nil
}
