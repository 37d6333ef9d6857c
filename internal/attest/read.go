package attest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
)

// Platform is one platform image of an index and the attestations
// BuildKit attached to it.
type Platform struct {
	Platform string `json:"platform"`
	Digest   string `json:"digest"`
	// AttestationManifest is the digest of the index entry that holds
	// this platform's attestations ("" when it has none).
	AttestationManifest string   `json:"attestationManifest,omitempty"`
	PredicateTypes      []string `json:"predicateTypes"`
	Provenance          bool     `json:"provenance"`
	SBOM                bool     `json:"sbom"`
}

// Image is what an index says about itself: its platforms, their
// attestations and the epp-build report referrer.
type Image struct {
	Ref         string     `json:"ref"`
	Repository  string     `json:"repository"`
	IndexDigest string     `json:"indexDigest"`
	Platforms   []Platform `json:"platforms"`
	// ReportDigest is the report referrer's manifest digest ("" when the
	// index has no report attestation).
	ReportDigest string     `json:"reportDigest,omitempty"`
	Report       *Statement `json:"report,omitempty"`
}

// maxStatement bounds a statement blob read from a registry.
const maxStatement = 16 << 20

// Read reads the index at ref (a tag or digest), BuildKit's attestation
// manifests in it and the epp-build report referrer, from the registry
// alone.
func Read(ctx context.Context, ref string, ro image.RegistryOptions) (*Image, error) {
	r, err := name.ParseReference(ref, ro.NameOptions()...)
	if err != nil {
		// The parser's message quotes the reference, userinfo and all.
		return nil, redact.Error(fmt.Errorf("image reference %q: %w (want REGISTRY/REPO:TAG or REGISTRY/REPO@sha256:...)", ref, err))
	}
	registry := r.Context().RegistryStr()
	opts := ro.RemoteOptions(ctx)
	desc, err := remote.Get(r, opts...)
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("read %s: %w", redact.Text(ref), err))
	}
	if !desc.MediaType.IsIndex() {
		return nil, &VerifyError{Ref: ref, Problems: []string{fmt.Sprintf("%s is a single %s, not an image index: epp-build pushes an index with attestations", desc.Digest, desc.MediaType)}}
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("read index %s: %w", redact.Text(ref), err))
	}
	idx = image.RemoteIndex(idx, r.Context(), opts)
	platforms, err := ReadIndex(idx)
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("%s: %w", redact.Text(ref), err))
	}
	out := &Image{Ref: ref, Repository: r.Context().Name(), IndexDigest: desc.Digest.String(), Platforms: platforms}
	refs, err := remote.Referrers(r.Context().Digest(desc.Digest.String()), opts...)
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("list the referrers of %s: %w", desc.Digest, err))
	}
	rm, err := refs.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("referrers of %s: %w", desc.Digest, err)
	}
	var candidates []v1.Descriptor
	for _, d := range rm.Manifests {
		if d.ArtifactType == MediaType && d.Annotations[predicateAnnotation] == PredicateType {
			candidates = append(candidates, d)
		}
	}
	sort.Slice(candidates, func(i, j int) bool { return candidates[i].Digest.String() < candidates[j].Digest.String() })
	for _, d := range candidates {
		stmt, err := readReport(r.Context().Digest(d.Digest.String()), opts)
		if err != nil {
			return nil, image.RegistryError(registry, fmt.Errorf("report attestation %s of %s: %w", d.Digest, desc.Digest, err))
		}
		out.ReportDigest, out.Report = d.Digest.String(), stmt
		break
	}
	return out, nil
}

func readReport(ref name.Digest, opts []remote.Option) (*Statement, error) {
	img, err := remote.Image(ref, opts...)
	if err != nil {
		return nil, err
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, err
	}
	if len(m.Layers) != 1 || string(m.Layers[0].MediaType) != MediaType {
		return nil, fmt.Errorf("want one %s layer, found %d layers", MediaType, len(m.Layers))
	}
	data, err := readBlob(img, m.Layers[0].Digest)
	if err != nil {
		return nil, err
	}
	var stmt Statement
	if err := json.Unmarshal(data, &stmt); err != nil {
		return nil, fmt.Errorf("decode the in-toto statement: %w", err)
	}
	if stmt.PredicateType != PredicateType {
		return nil, fmt.Errorf("predicate type %q, want %q", stmt.PredicateType, PredicateType)
	}
	return &stmt, nil
}

func readBlob(img v1.Image, dgst v1.Hash) ([]byte, error) {
	l, err := img.LayerByDigest(dgst)
	if err != nil {
		return nil, err
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxStatement+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxStatement {
		return nil, fmt.Errorf("blob %s is larger than %d bytes", dgst, maxStatement)
	}
	return data, nil
}

// ReadIndex lists the platform images of an index (pushed or from an OCI
// tarball) and the predicate types of the attestation manifest BuildKit
// attached to each.
func ReadIndex(idx v1.ImageIndex) ([]Platform, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	atts := map[string]v1.Descriptor{}
	var platforms []Platform
	for _, d := range im.Manifests {
		if d.Annotations[referenceType] == attestationManifest {
			atts[d.Annotations[referenceDigest]] = d
			continue
		}
		if d.Platform == nil || d.Platform.OS == "unknown" {
			continue
		}
		platforms = append(platforms, Platform{Platform: d.Platform.OS + "/" + d.Platform.Architecture, Digest: d.Digest.String()})
	}
	for i := range platforms {
		p := &platforms[i]
		p.PredicateTypes = []string{}
		d, ok := atts[p.Digest]
		if !ok {
			continue
		}
		p.AttestationManifest = d.Digest.String()
		types, err := predicateTypes(idx, d)
		if err != nil {
			return nil, fmt.Errorf("attestation manifest %s of %s: %w", d.Digest, p.Platform, err)
		}
		p.PredicateTypes = types
		for _, t := range types {
			p.Provenance = p.Provenance || strings.HasPrefix(t, ProvenancePrefix)
			p.SBOM = p.SBOM || t == SPDXPredicate
		}
	}
	sort.Slice(platforms, func(i, j int) bool { return platforms[i].Platform < platforms[j].Platform })
	return platforms, nil
}

// predicateTypes reads the predicate type of every in-toto layer of an
// attestation manifest: from the layer annotation BuildKit sets, else from
// the statement itself.
func predicateTypes(idx v1.ImageIndex, d v1.Descriptor) ([]string, error) {
	img, err := idx.Image(d.Digest)
	if err != nil {
		return nil, err
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, err
	}
	types := []string{}
	for _, l := range m.Layers {
		if string(l.MediaType) != MediaType {
			continue // unknown media types are ignored, as the format says
		}
		t := l.Annotations[predicateAnnotation]
		if t == "" {
			data, err := readBlob(img, l.Digest)
			if err != nil {
				return nil, err
			}
			var head struct {
				PredicateType string `json:"predicateType"`
			}
			if err := json.Unmarshal(data, &head); err != nil {
				return nil, fmt.Errorf("layer %s: %w", l.Digest, err)
			}
			t = head.PredicateType
		}
		if t == "" {
			return nil, errors.New("an in-toto layer without a predicate type")
		}
		types = append(types, t)
	}
	sort.Strings(types)
	return types, nil
}
