package imagetest

import (
	"encoding/json"
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// AttestedIndex builds an image index laid out as BuildKit exports one
// with attestations (docs/attestations/attestation-storage.md in BuildKit):
// a small random image per platform ("linux/amd64"), and for each platform
// listed in predicates an attestation manifest (platform unknown/unknown,
// vnd.docker.reference.type attestation-manifest) whose in-toto layers
// carry those predicate types. A platform missing from predicates gets no
// attestation manifest: the failure case for verify.
func AttestedIndex(platforms []string, predicates map[string][]string) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var adds []mutate.IndexAddendum
	var atts []mutate.IndexAddendum
	for _, p := range platforms {
		osName, arch, ok := strings.Cut(p, "/")
		if !ok {
			return nil, fmt.Errorf("platform %q: want OS/ARCH", p)
		}
		img, err := random.Image(256, 1)
		if err != nil {
			return nil, err
		}
		if img, err = withPlatform(img, osName, arch, nil); err != nil {
			return nil, err
		}
		img = mutate.MediaType(img, types.OCIManifestSchema1)
		dgst, err := img.Digest()
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1, Platform: &v1.Platform{OS: osName, Architecture: arch}}})
		pts, ok := predicates[p]
		if !ok {
			continue
		}
		att := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
		for _, pt := range pts {
			stmt, err := json.Marshal(map[string]any{
				"_type": "https://in-toto.io/Statement/v0.1", "predicateType": pt, "predicate": map[string]any{},
				"subject": []any{map[string]any{"name": "_", "digest": map[string]string{"sha256": dgst.Hex}}},
			})
			if err != nil {
				return nil, err
			}
			att, err = mutate.Append(att, mutate.Addendum{
				Layer:       static.NewLayer(stmt, "application/vnd.in-toto+json"),
				Annotations: map[string]string{"in-toto.io/predicate-type": pt},
			})
			if err != nil {
				return nil, err
			}
		}
		atts = append(atts, mutate.IndexAddendum{Add: att, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1,
			Platform:  &v1.Platform{OS: "unknown", Architecture: "unknown"},
			Annotations: map[string]string{
				"vnd.docker.reference.type":   "attestation-manifest",
				"vnd.docker.reference.digest": dgst.String(),
			}}})
	}
	return mutate.AppendManifests(idx, append(adds, atts...)...), nil
}
