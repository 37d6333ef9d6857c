package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/epp-build/epp-build/internal/image"
)

// emptyJSON is the OCI empty descriptor's content, the config of an
// artifact manifest.
var emptyJSON = []byte("{}")

const emptyMediaType types.MediaType = "application/vnd.oci.empty.v1+json"

// Attach pushes stmt as an OCI 1.1 referrer of the index at
// repository@indexDigest: an artifact manifest (artifactType
// application/vnd.in-toto+json, subject the index, one layer the
// statement). A registry without the referrers API gets the referrers tag
// scheme (tag sha256-<hex> listing the referrers), which
// go-containerregistry maintains. It returns the referrer's digest.
func Attach(ctx context.Context, repository, indexDigest string, stmt *Statement, ro image.RegistryOptions) (string, error) {
	data, err := json.Marshal(stmt)
	if err != nil {
		return "", err
	}
	return attachStatement(ctx, repository, indexDigest, data, PredicateType, ro)
}

// attachStatement pushes the statement blob data, whose predicate type is
// predicateType, as a referrer of the index.
func attachStatement(ctx context.Context, repository, indexDigest string, data []byte, predicateType string, ro image.RegistryOptions) (string, error) {
	repo, err := name.NewRepository(repository, ro.NameOptions()...)
	if err != nil {
		return "", fmt.Errorf("report attestation: repository %q: %w", repository, err)
	}
	registry := repo.RegistryStr()
	opts := ro.RemoteOptions(ctx)
	subject, err := remote.Head(repo.Digest(indexDigest), opts...)
	if err != nil {
		return "", image.RegistryError(registry, fmt.Errorf("report attestation: read the index %s: %w", indexDigest, err))
	}
	config := static.NewLayer(emptyJSON, emptyMediaType)
	layer := static.NewLayer(data, types.MediaType(MediaType))
	for _, l := range []v1.Layer{config, layer} {
		if err := remote.WriteLayer(repo, l, opts...); err != nil {
			return "", image.RegistryError(registry, fmt.Errorf("report attestation: push a blob to %s: %w", repository, err))
		}
	}
	cd, err := descriptorOf(config, emptyMediaType)
	if err != nil {
		return "", err
	}
	cd.Data = emptyJSON
	ld, err := descriptorOf(layer, types.MediaType(MediaType))
	if err != nil {
		return "", err
	}
	ld.Annotations = map[string]string{predicateAnnotation: predicateType}
	m := v1.Manifest{
		SchemaVersion: 2,
		MediaType:     types.OCIManifestSchema1,
		ArtifactType:  MediaType,
		Config:        cd,
		Layers:        []v1.Descriptor{ld},
		Subject:       &v1.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		// The referrers list copies these, so a reader finds the report
		// without fetching every referrer.
		Annotations: map[string]string{predicateAnnotation: predicateType},
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	dgst, _, err := v1.SHA256(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	if err := remote.Put(repo.Digest(dgst.String()), rawManifest{raw}, opts...); err != nil {
		return "", image.RegistryError(registry, fmt.Errorf("report attestation: push the referrer of %s: %w", indexDigest, err))
	}
	return dgst.String(), nil
}

func descriptorOf(l v1.Layer, mt types.MediaType) (v1.Descriptor, error) {
	d, err := l.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	size, err := l.Size()
	if err != nil {
		return v1.Descriptor{}, err
	}
	return v1.Descriptor{MediaType: mt, Digest: d, Size: size}, nil
}

// rawManifest is a manifest pushed as these exact bytes.
type rawManifest struct{ raw []byte }

func (m rawManifest) RawManifest() ([]byte, error)        { return m.raw, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }
