package imagetest

import (
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BasePlatforms are the platforms of the Debian base DebianBase serves.
var BasePlatforms = []string{"linux/amd64", "linux/arm64"}

// BaseDir holds the Debian root file systems scripts/install-test-deps.sh
// makes with debootstrap, one tarball per architecture
// (bookworm-amd64.tar, bookworm-arm64.tar); EPP_BUILD_BASE_DIR overrides it.
func BaseDir() string {
	if dir := os.Getenv("EPP_BUILD_BASE_DIR"); dir != "" {
		return dir
	}
	return "/var/lib/epp-build-base"
}

// BaseTarball is the root file system of platform's Debian base.
func BaseTarball(platform string) string {
	return filepath.Join(BaseDir(), "bookworm-"+filepath.Base(platform)+".tar")
}

// DebianBase pushes a two-platform Debian bookworm image, made on this
// machine from the tarballs in BaseDir, to the registry at host and returns
// its digest reference. It stands in for docker.io/library/debian:bookworm,
// which cannot be pulled here: the builder and tool images are built FROM
// it exactly as users build them FROM Debian's.
func DebianBase(ctx context.Context, host string) (string, error) {
	var adds []mutate.IndexAddendum
	for _, p := range BasePlatforms {
		arch, file := filepath.Base(p), BaseTarball(p)
		if _, err := os.Stat(file); err != nil {
			return "", fmt.Errorf("the Debian base for %s: %w (scripts/install-test-deps.sh makes it)", p, err)
		}
		layer, err := tarball.LayerFromFile(file, tarball.WithCompressionLevel(gzip.BestSpeed),
			tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", file, err)
		}
		img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layer)
		if err != nil {
			return "", err
		}
		cf, err := img.ConfigFile()
		if err != nil {
			return "", err
		}
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture = "linux", arch
		cf.Config = v1.Config{
			Env: []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
			Cmd: []string{"bash"},
		}
		if img, err = mutate.ConfigFile(mutate.ConfigMediaType(img, types.OCIConfigJSON), cf); err != nil {
			return "", err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1, Platform: &v1.Platform{OS: "linux", Architecture: arch}}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	ref, err := name.ParseReference(host+"/library/debian:bookworm", name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("push the Debian base to %s: %w", host, err)
	}
	dgst, err := idx.Digest()
	if err != nil {
		return "", err
	}
	return ref.Context().Name() + "@" + dgst.String(), nil
}
