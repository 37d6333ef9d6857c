package imagetest

import (
	"archive/tar"
	"bytes"
	"fmt"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BinaryIndex builds an image index of one image per platform
// ("linux/amd64"), each holding files[platform] at path and nothing else,
// as a scratch image of the EPP does.
func BinaryIndex(path string, files map[string][]byte) (v1.ImageIndex, error) {
	var adds []mutate.IndexAddendum
	for platform, data := range files {
		osName, arch, ok := strings.Cut(platform, "/")
		if !ok {
			return nil, fmt.Errorf("platform %q: want OS/ARCH", platform)
		}
		var layer bytes.Buffer
		tw := tar.NewWriter(&layer)
		hdr := &tar.Header{Name: strings.TrimPrefix(path, "/"), Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
		if err := tw.Close(); err != nil {
			return nil, err
		}
		img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), static.NewLayer(layer.Bytes(), types.OCIUncompressedLayer))
		if err != nil {
			return nil, err
		}
		if img, err = withPlatform(img, osName, arch, []string{path}); err != nil {
			return nil, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1, Platform: &v1.Platform{OS: osName, Architecture: arch}}})
	}
	return mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...), nil
}

// withPlatform is img with its config's OS and architecture set, and its
// entrypoint when one is given.
func withPlatform(img v1.Image, osName, arch string, entrypoint []string) (v1.Image, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = osName, arch
	if entrypoint != nil {
		cf.Config.Entrypoint = entrypoint
	}
	return mutate.ConfigFile(img, cf)
}
