package attest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/sigstore/sigstore/pkg/signature/dsse"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
)

// The signed report is stored where `cosign attest --key` stores an
// attestation and `cosign verify-attestation --key` looks for it: an image
// tagged sha256-<index hex>.att in the index's repository, one layer per
// signed statement, each a DSSE envelope whose payload is the in-toto
// statement (here: exactly the bytes of the report referrer's statement).
const (
	dsseMediaType types.MediaType = "application/vnd.dsse.envelope.v1+json"
	// cosign marks an attestation layer with an empty signature
	// annotation (the signature is inside the envelope) and names its
	// predicate type.
	cosignSignatureAnnotation = "dev.cosignproject.cosign/signature"
	cosignPredicateAnnotation = "predicateType"
)

// AttestationTag is the tag cosign keeps the attestations of the index in.
func AttestationTag(repo name.Repository, indexDigest string) (name.Tag, error) {
	algo, hex, ok := strings.Cut(indexDigest, ":")
	if !ok {
		return name.Tag{}, fmt.Errorf("index digest %q is not ALGO:HEX", indexDigest)
	}
	return repo.Tag(algo + "-" + hex + ".att"), nil
}

// SignReport signs the report statement of img (the bytes read from the
// registry, so the signature is over exactly what verify reads) with s,
// and adds the DSSE envelope to the index's cosign attestation image,
// keeping the layers already there, also those a concurrent signer adds
// (see addAttestations). It returns the attestation tag.
func SignReport(ctx context.Context, img *Image, s *Signer, ro image.RegistryOptions) (string, error) {
	if s == nil || s.sv == nil {
		return "", errNoKey
	}
	if img.Report == nil || len(img.reportRaw) == 0 {
		return "", &VerifyError{Ref: img.Ref, Problems: []string{"there is no single report attestation to sign (verify names why)"}}
	}
	repo, err := name.NewRepository(img.Repository, ro.NameOptions()...)
	if err != nil {
		return "", fmt.Errorf("sign: repository %q: %w", img.Repository, err)
	}
	tag, err := AttestationTag(repo, img.IndexDigest)
	if err != nil {
		return "", err
	}
	statements := []struct {
		raw           []byte
		predicateType string
	}{{img.reportRaw, PredicateType}}
	if len(img.provenanceRaw) > 0 {
		statements = append(statements, struct {
			raw           []byte
			predicateType string
		}{img.provenanceRaw, SLSAProvenanceV1})
	}
	// Signed once: a retry of the write re-adds these same envelopes.
	var layers []mutate.Addendum
	for _, st := range statements {
		envelope, err := dsse.WrapSigner(s.sv, MediaType).SignMessage(bytes.NewReader(st.raw))
		if err != nil {
			return "", fmt.Errorf("sign the %s statement: %w", st.predicateType, err)
		}
		layers = append(layers, mutate.Addendum{
			Layer:     static.NewLayer(envelope, dsseMediaType),
			MediaType: dsseMediaType,
			Annotations: map[string]string{
				cosignSignatureAnnotation: "",
				cosignPredicateAnnotation: st.predicateType,
			},
		})
	}
	if err := addAttestations(ctx, tag, layers, ro.RemoteOptions(ctx)); err != nil {
		return "", err
	}
	return tag.String(), nil
}

func isNotFound(err error) bool {
	var te *transport.Error
	return errors.As(err, &te) && te.StatusCode == http.StatusNotFound
}

// CheckSignature requires that the report img shows is signed with v: the
// index's cosign attestation image holds a DSSE envelope, verified with
// v's key, whose payload is exactly the report statement's bytes (the
// blob whose digest the report referrer names). Envelopes by other keys
// or over other statements are passed over; none that fits is a
// *VerifyError.
func (img *Image) CheckSignature(ctx context.Context, v *Verifier, ro image.RegistryOptions) error {
	if v == nil || v.v == nil {
		return errNoKey
	}
	fail := func(format string, args ...any) error {
		return &VerifyError{Ref: img.Ref, Problems: []string{fmt.Sprintf(format, args...)}}
	}
	if img.Report == nil || img.ReportStatement == "" {
		return fail("no single report attestation to check the signature of")
	}
	repo, err := name.NewRepository(img.Repository, ro.NameOptions()...)
	if err != nil {
		return err
	}
	tag, err := AttestationTag(repo, img.IndexDigest)
	if err != nil {
		return err
	}
	opts := ro.RemoteOptions(ctx)
	att, err := remote.Image(tag, opts...)
	if isNotFound(err) {
		return fail("the report %s is not signed: no cosign attestation image %s", img.ReportDigest, tag.TagStr())
	}
	if err != nil {
		return image.RegistryError(repo.RegistryStr(), fmt.Errorf("read the signatures %s: %w", redact.Text(tag.String()), err))
	}
	m, err := att.Manifest()
	if err != nil {
		return image.RegistryError(repo.RegistryStr(), fmt.Errorf("read the signatures %s: %w", redact.Text(tag.String()), err))
	}
	sig, err := signatureOver(att, m, v, img.ReportStatement)
	if err != nil {
		if registryFailure(err) {
			return image.RegistryError(repo.RegistryStr(), err)
		}
		return fail("the report %s (statement %s) is not signed: %v", img.ReportDigest, img.ReportStatement, err)
	}
	if img.ProvenanceStatement != "" {
		if _, err := signatureOver(att, m, v, img.ProvenanceStatement); err != nil {
			if registryFailure(err) {
				return image.RegistryError(repo.RegistryStr(), err)
			}
			return fail("the provenance %s (statement %s) is not signed: %v", img.ProvenanceDigest, img.ProvenanceStatement, err)
		}
	}
	img.Signature = sig
	return nil
}

// signatureOver finds the DSSE envelope of the attestation image att that
// verifies with v and whose payload's digest is statement, and returns its
// layer digest; the error says what each envelope was.
func signatureOver(att v1.Image, m *v1.Manifest, v *Verifier, statement string) (string, error) {
	if err := tooManyEnvelopes(m); err != nil {
		return "", err
	}
	var tried []string
	for _, l := range m.Layers {
		if l.MediaType != dsseMediaType {
			continue
		}
		envelope, err := fetchBlob(att, l, true, maxStatement)
		if err != nil {
			if registryFailure(err) {
				return "", err
			}
			tried = append(tried, fmt.Sprintf("%s: %s", l.Digest, reason(err)))
			continue
		}
		if err := tooManySignatures(envelope); err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", l.Digest, err))
			continue
		}
		var payload []byte
		dv := dsse.WrapVerifier(v.v, dsse.WithExpectedPayloadType(MediaType), dsse.WithDecodedPayload(&payload))
		if err := dv.VerifySignature(bytes.NewReader(envelope), nil); err != nil {
			tried = append(tried, fmt.Sprintf("%s: not signed by this key", l.Digest))
			continue
		}
		if got := digestOf(payload); got != statement {
			tried = append(tried, fmt.Sprintf("%s: signed by this key over another statement (%s)", l.Digest, got))
			continue
		}
		return l.Digest.String(), nil
	}
	if len(tried) == 0 {
		return "", errors.New("the cosign attestation image holds no DSSE envelope")
	}
	return "", fmt.Errorf("no signature by the key %s: %s", v.Path, strings.Join(tried, "; "))
}
