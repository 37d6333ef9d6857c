package imagetest

import (
	"archive/tar"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

//go:embed sbom-scan.sh
var sbomScan []byte

// SBOMGeneratorImage assembles an SBOM generator image for BuildKit's
// `attest:sbom=generator=REF`: FROM scratch with busybox (Debian's
// busybox-static), syft (built by scripts/install-test-deps.sh) and
// sbom-scan.sh, which speaks BuildKit's scanner protocol. It pushes the
// image to the registry at host and returns its digest reference.
// BuildKit runs the generator on the build platform, so the image is for
// this machine's platform only. BuildKit's default generator
// (docker/buildkit-syft-scanner) cannot be pulled here.
func SBOMGeneratorImage(ctx context.Context, host string) (string, error) {
	syft, err := FindTool("syft")
	if err != nil {
		return "", err
	}
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		return "", fmt.Errorf("busybox not found (apt-get install busybox-static): %w", err)
	}
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	epoch := time.Unix(0, 0)
	add := func(h *tar.Header, data []byte) error {
		h.ModTime, h.Size = epoch, int64(len(data))
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	files := []struct {
		hdr  tar.Header
		path string
		data []byte
	}{
		{hdr: tar.Header{Name: "bin/", Typeflag: tar.TypeDir, Mode: 0o755}},
		{hdr: tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777}},
		{hdr: tar.Header{Name: "bin/busybox", Typeflag: tar.TypeReg, Mode: 0o755}, path: busybox},
		{hdr: tar.Header{Name: "bin/sh", Typeflag: tar.TypeSymlink, Linkname: "busybox", Mode: 0o777}},
		{hdr: tar.Header{Name: "bin/syft", Typeflag: tar.TypeReg, Mode: 0o755}, path: syft},
		{hdr: tar.Header{Name: "bin/sbom-scan", Typeflag: tar.TypeReg, Mode: 0o755}, data: sbomScan},
	}
	for _, f := range files {
		data := f.data
		if f.path != "" {
			if data, err = os.ReadFile(f.path); err != nil {
				return "", err
			}
		}
		if err := add(&f.hdr, data); err != nil {
			return "", err
		}
	}
	// The shell script needs basename, cat and printf: busybox applets.
	for _, applet := range []string{"basename", "cat", "printf"} {
		if err := add(&tar.Header{Name: "bin/" + applet, Typeflag: tar.TypeSymlink, Linkname: "busybox", Mode: 0o777}, nil); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1),
		static.NewLayer(layer.Bytes(), types.OCIUncompressedLayer))
	if err != nil {
		return "", err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return "", err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", runtime.GOARCH
	cf.Config = v1.Config{
		Entrypoint: []string{"/bin/sh", "/bin/sbom-scan"},
		Env:        []string{"PATH=/bin", "HOME=/tmp", "TMPDIR=/tmp", "SYFT_CHECK_FOR_APP_UPDATE=false"},
	}
	if img, err = mutate.ConfigFile(mutate.ConfigMediaType(img, types.OCIConfigJSON), cf); err != nil {
		return "", err
	}
	ref, err := name.ParseReference(host+"/epp-build/sbom-generator:test", name.Insecure)
	if err != nil {
		return "", err
	}
	if err := remote.Write(ref, img, remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("push the SBOM generator image to %s: %w", host, err)
	}
	dgst, err := img.Digest()
	if err != nil {
		return "", err
	}
	return ref.Context().Name() + "@" + dgst.String(), nil
}
