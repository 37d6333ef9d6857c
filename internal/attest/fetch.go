package attest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/epp-build/epp-build/internal/redact"
)

// Unfetched is something the index names that could not be fetched, or
// whose bytes do not match the digest it is named by. Inspect shows it in
// place of "yes"; verify fails on it: nothing is vouched for unread.
type Unfetched struct {
	// What is "sbom", "provenance", "attestations" (the attestation
	// manifest), "image" (the platform image) or another predicate type.
	What string `json:"what"`
	// Kind is "manifest" or "blob".
	Kind   string `json:"kind"`
	Digest string `json:"digest"`
	// Reason is the registry's status ("404") or what differs.
	Reason string `json:"reason"`
}

func (u Unfetched) String() string {
	return fmt.Sprintf("%s: missing (%s %s %s)", u.What, u.Kind, u.Digest, u.Reason)
}

// fetchMode is how much of each platform image Read fetches. Attestation
// manifests and their blobs are always fetched and checked (they are
// small); the platform image's manifest and config too.
type fetchMode struct {
	// imageLayers fetches and hashes every layer of every platform image
	// (verify); otherwise a layer is only asked for (headBlob) when a
	// prober is given, so that a deleted layer still shows.
	imageLayers bool
	headBlob    func(v1.Hash) (int64, error)
}

// fatal is an error that stops reading: the registry refused us, failed,
// or the context ended. Everything else is an Unfetched entry.
type fatal struct{ err error }

func (f *fatal) Error() string { return f.err.Error() }
func (f *fatal) Unwrap() error { return f.err }

func (m fetchMode) classify(err error) error {
	if registryFailure(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &fatal{err}
	}
	return nil
}

// reason is the short form of a fetch failure: the HTTP status when the
// registry answered one, else the error text, redacted.
func reason(err error) string {
	var te *transport.Error
	if errors.As(err, &te) && te.StatusCode != 0 {
		return strconv.Itoa(te.StatusCode)
	}
	var mm *mismatchError
	if errors.As(err, &mm) {
		return mm.Error()
	}
	return redact.Text(err.Error())
}

// mismatchError is content whose digest or size is not the one it is
// named by.
type mismatchError struct{ want, got string }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("content does not match: got %s", e.got)
}

// blobError is a report referrer's blob that could not be fetched.
type blobError struct {
	what, digest string
	err          error
}

func (e *blobError) Error() string {
	return fmt.Sprintf("its %s blob %s: %s", e.what, e.digest, reason(e.err))
}

func (e *blobError) Unwrap() error { return e.err }

// readManifest fetches a child manifest of idx and checks its bytes hash
// to the descriptor's digest.
func readManifest(idx v1.ImageIndex, d v1.Descriptor) (v1.Image, *v1.Manifest, error) {
	img, err := idx.Image(d.Digest)
	if err != nil {
		return nil, nil, err
	}
	raw, err := img.RawManifest()
	if err != nil {
		return nil, nil, err
	}
	if got := digestOf(raw); got != d.Digest.String() {
		return nil, nil, &mismatchError{want: d.Digest.String(), got: got}
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, fmt.Errorf("decode manifest %s: %w", d.Digest, err)
	}
	return img, &m, nil
}

// fetchBlob reads the blob d of img to its end, checking its size and
// digest. With keep it returns the bytes (at most limit of them).
func fetchBlob(img v1.Image, d v1.Descriptor, keep bool, limit int64) ([]byte, error) {
	l, err := img.LayerByDigest(d.Digest)
	if err != nil {
		return nil, err
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	h := sha256.New()
	var buf bytes.Buffer
	var w io.Writer = h
	if keep {
		w = io.MultiWriter(h, &buf)
	}
	n, err := io.Copy(w, io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("blob %s is larger than %d bytes", d.Digest, limit)
	}
	if got := sum(h); got != d.Digest.String() || (d.Size > 0 && n != d.Size) {
		return nil, &mismatchError{want: d.Digest.String(), got: fmt.Sprintf("%s, %d bytes", got, n)}
	}
	return buf.Bytes(), nil
}

func digestOf(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

func sum(h hash.Hash) string { return "sha256:" + hex.EncodeToString(h.Sum(nil)) }

// maxImageBlob bounds one platform image layer read by verify.
const maxImageBlob = 8 << 30

// checkImage fetches the platform image d: its manifest, its config and
// (as mode says) its layers. It returns what could not be fetched.
func (m fetchMode) checkImage(idx v1.ImageIndex, d v1.Descriptor) ([]Unfetched, error) {
	img, man, err := readManifest(idx, d)
	if err != nil {
		if f := m.classify(err); f != nil {
			return nil, f
		}
		return []Unfetched{{What: "image", Kind: "manifest", Digest: d.Digest.String(), Reason: reason(err)}}, nil
	}
	var out []Unfetched
	blobs := append([]v1.Descriptor{man.Config}, man.Layers...)
	for i, b := range blobs {
		switch {
		case i == 0 || m.imageLayers || m.headBlob == nil:
			_, err = fetchBlob(img, b, false, maxImageBlob)
		default:
			var size int64
			if size, err = m.headBlob(b.Digest); err == nil && size != b.Size {
				err = &mismatchError{want: b.Digest.String(), got: fmt.Sprintf("%d bytes, the manifest says %d", size, b.Size)}
			}
		}
		if err != nil {
			if f := m.classify(err); f != nil {
				return nil, f
			}
			out = append(out, Unfetched{What: "image", Kind: "blob", Digest: b.Digest.String(), Reason: reason(err)})
		}
	}
	return out, nil
}

// checkAttestations fetches the attestation manifest d of the platform
// image platformDigest and every in-toto blob in it, checks each blob's
// digest, that its statement has the predicate type its annotation says
// and is about that platform image. It returns the predicate types that
// checked out and what did not.
func (m fetchMode) checkAttestations(idx v1.ImageIndex, d v1.Descriptor, platformDigest string) ([]string, []Unfetched, *fetched, error) {
	img, man, err := readManifest(idx, d)
	if err != nil {
		if f := m.classify(err); f != nil {
			return nil, nil, nil, f
		}
		return nil, []Unfetched{{What: "attestations", Kind: "manifest", Digest: d.Digest.String(), Reason: reason(err)}}, nil, nil
	}
	_, wantHex, _ := strings.Cut(platformDigest, ":")
	types := []string{}
	var out []Unfetched
	var prov *fetched
	for _, l := range man.Layers {
		if string(l.MediaType) != MediaType {
			continue // unknown media types are ignored, as the format says
		}
		annotated := l.Annotations[predicateAnnotation]
		data, err := fetchBlob(img, l, true, maxStatement)
		if err != nil {
			if f := m.classify(err); f != nil {
				return nil, nil, nil, f
			}
			out = append(out, Unfetched{What: kindOf(annotated), Kind: "blob", Digest: l.Digest.String(), Reason: reason(err)})
			continue
		}
		var head struct {
			PredicateType string    `json:"predicateType"`
			Subject       []Subject `json:"subject"`
		}
		bad := func(why string) {
			what := annotated
			if what == "" {
				what = head.PredicateType
			}
			out = append(out, Unfetched{What: kindOf(what), Kind: "blob", Digest: l.Digest.String(), Reason: why})
		}
		if err := json.Unmarshal(data, &head); err != nil {
			bad("not an in-toto statement: " + err.Error())
			continue
		}
		switch {
		case head.PredicateType == "":
			bad("an in-toto statement without a predicate type")
			continue
		case annotated != "" && annotated != head.PredicateType:
			bad(fmt.Sprintf("annotated %q, the statement says %q", annotated, head.PredicateType))
			continue
		case !about(head.Subject, wantHex):
			bad("the statement is not about the platform image " + platformDigest)
			continue
		}
		types = append(types, head.PredicateType)
		if prov == nil && strings.HasPrefix(head.PredicateType, ProvenancePrefix) {
			prov = &fetched{digest: l.Digest.String(), data: data}
		}
	}
	return types, out, prov, nil
}

// fetched is a blob read and checked against its digest.
type fetched struct {
	digest string
	data   []byte
}

func about(subjects []Subject, hex string) bool {
	for _, s := range subjects {
		if s.Digest["sha256"] == hex {
			return true
		}
	}
	return false
}

// kindOf names a predicate type as inspect shows it.
func kindOf(predicateType string) string {
	switch {
	case strings.HasPrefix(predicateType, ProvenancePrefix):
		return "provenance"
	case strings.HasPrefix(predicateType, SPDXPredicate):
		return "sbom"
	case predicateType == "":
		return "attestation"
	}
	return predicateType
}
