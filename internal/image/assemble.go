package image

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// AssembleIndex reads the indexes that separate solves pushed by digest
// to repository (one per BuildKit node) and pushes ONE index by digest
// holding all their entries: the platform manifests first, in the order
// given, then the attestation manifests BuildKit made for them, each
// descriptor exactly as its solve wrote it (platform, annotations). It
// returns the new index's digest; nothing is tagged.
func AssembleIndex(ctx context.Context, repository string, digests []string, ro RegistryOptions) (string, error) {
	return AssembleAnnotatedIndex(ctx, repository, digests, nil, ro)
}

// AssembleAnnotatedIndex is AssembleIndex with annotations on the index
// itself (--annotation index:KEY=VALUE and the OCI defaults).
func AssembleAnnotatedIndex(ctx context.Context, repository string, digests []string, annotations map[string]string, ro RegistryOptions) (string, error) {
	repo, err := name.NewRepository(repository, ro.nameOpts()...)
	if err != nil {
		return "", fmt.Errorf("assemble index in %s: %w", repository, err)
	}
	var images, attestations []v1.Descriptor
	seen := map[v1.Hash]bool{}
	for _, d := range digests {
		ref := repo.Digest(d)
		idx, err := remote.Index(ref, ro.remoteOpts(ctx)...)
		if err != nil {
			return "", registryError(repo.RegistryStr(), fmt.Errorf("read index %s: %w", ref, err))
		}
		im, err := idx.IndexManifest()
		if err != nil {
			return "", fmt.Errorf("index %s: %w", ref, err)
		}
		for _, desc := range im.Manifests {
			if seen[desc.Digest] {
				continue
			}
			seen[desc.Digest] = true
			if isAttestation(desc) {
				attestations = append(attestations, desc)
			} else {
				images = append(images, desc)
			}
		}
	}
	raw, err := json.Marshal(v1.IndexManifest{
		SchemaVersion: 2,
		MediaType:     types.OCIImageIndex,
		Manifests:     append(images, attestations...),
		Annotations:   annotations,
	})
	if err != nil {
		return "", err
	}
	m := rawIndex(raw)
	dgst, _, err := v1.SHA256(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	if err := remote.Put(repo.Digest(dgst.String()), m, ro.remoteOpts(ctx)...); err != nil {
		return "", registryError(repo.RegistryStr(), fmt.Errorf("push the assembled index to %s: %w", repository, err))
	}
	return dgst.String(), nil
}

func isAttestation(d v1.Descriptor) bool {
	if d.Annotations["vnd.docker.reference.type"] == "attestation-manifest" {
		return true
	}
	return d.Platform != nil && d.Platform.OS+"/"+d.Platform.Architecture == attestationPlatform
}

// rawIndex is an OCI index's bytes, pushed as they are.
type rawIndex []byte

func (r rawIndex) RawManifest() ([]byte, error)        { return r, nil }
func (r rawIndex) MediaType() (types.MediaType, error) { return types.OCIImageIndex, nil }
