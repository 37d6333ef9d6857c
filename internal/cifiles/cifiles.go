// Package cifiles writes what a build pushed in the formats CI tools read:
// buildx's --metadata-file (JSON) and ko's --image-refs (one
// REPOSITORY@DIGEST per line).
package cifiles

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/image"
)

// Built is one version's result.
type Built struct {
	Version    string
	Repository string   // REGISTRY/REPO
	Tags       []string // every tag set, full references
	Digest     string   // the index digest
	Pushed     bool
}

// Descriptor is an OCI descriptor as buildx writes it.
type Descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// Metadata is one build's entry in buildx's metadata file.
type Metadata struct {
	Digest     string      `json:"containerimage.digest"`
	Descriptor *Descriptor `json:"containerimage.descriptor,omitempty"`
	ImageName  string      `json:"image.name"`
	Version    string      `json:"epp-build.version"`
}

// metadataFor reads the pushed index's descriptor back from the registry.
func metadataFor(ctx context.Context, b Built, ro image.RegistryOptions) (Metadata, error) {
	m := Metadata{Digest: b.Digest, ImageName: strings.Join(b.Tags, ","), Version: b.Version}
	if !b.Pushed {
		return m, nil
	}
	ref, err := name.NewDigest(b.Repository+"@"+b.Digest, ro.NameOptions()...)
	if err != nil {
		return m, err
	}
	d, err := remote.Head(ref, ro.RemoteOptions(ctx)...)
	if err != nil {
		return m, image.RegistryError(ref.RegistryStr(), fmt.Errorf("read the pushed index %s: %w", ref, err))
	}
	m.Descriptor = &Descriptor{MediaType: string(d.MediaType), Digest: d.Digest.String(), Size: d.Size}
	return m, nil
}

// WriteMetadata writes buildx's metadata file: one build's keys at the
// top level, as `docker buildx build --metadata-file` does; several
// versions keyed by version, as `docker buildx bake` keys its targets.
func WriteMetadata(ctx context.Context, path string, builds []Built, ro image.RegistryOptions) error {
	var doc any
	if len(builds) == 1 {
		m, err := metadataFor(ctx, builds[0], ro)
		if err != nil {
			return err
		}
		doc = m
	} else {
		all := map[string]Metadata{}
		for _, b := range builds {
			m, err := metadataFor(ctx, b, ro)
			if err != nil {
				return err
			}
			all[b.Version] = m
		}
		doc = all
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("metadata file: %w", err)
	}
	return nil
}

// WriteImageRefs writes ko's image-refs file: REPOSITORY@DIGEST, one line
// per pushed build, in order.
func WriteImageRefs(path string, builds []Built) error {
	var b strings.Builder
	for _, x := range builds {
		if x.Pushed {
			fmt.Fprintf(&b, "%s@%s\n", x.Repository, x.Digest)
		}
	}
	if err := atomicfile.Write(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("image refs file: %w", err)
	}
	return nil
}
