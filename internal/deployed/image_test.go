//go:build e2e

package deployed

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testenv"
)

// builtEPP is the EPP of one line as the image holds it.
type builtEPP struct {
	binary string // the image's entrypoint, extracted
	tree   string // the patched GAIE tree the build used
}

// buildImage runs `epp-build build` for the line, for linux/amd64, with the
// C API test double of the line as the C API, into an OCI tarball, and
// takes the image's entrypoint out of the linux/amd64 image's layers.
func buildImage(t *testing.T, dir string, l line) builtEPP {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bk"), 0o755))
	bk, err := imagetest.StartBuildKit(ctx, filepath.Join(dir, "bk"))
	if err != nil {
		testenv.Require(t, "buildkitd", err.Error())
	}
	defer bk.Stop()

	bin := filepath.Join(dir, "epp-build")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/epp-build").CombinedOutput()
	require.NoError(t, err, "%s", out)
	crate := filepath.Join(dir, "capi-double")
	require.NoError(t, os.CopyFS(crate, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))

	tarball := filepath.Join(dir, "epp.tar")
	tree := filepath.Join(dir, "tree")
	args := []string{"--patches", filepath.Join("..", "..", "patches"), "build", "--version", l.version,
		"--source", "goproxy", "--image", "example.invalid/dynamo/epp:" + l.version, "--platform", "linux/amd64",
		"--oci-tar", tarball, "--capi-src", crate, "--base-image", "scratch", "--buildkit", bk.Addr,
		"--progress", "plain", "--sbom", "false", "--provenance", "false",
		"--tree", tree, "--cache-dir", filepath.Join(dir, "cache")}
	if l.capiFeatures != "" {
		args = append(args, "--capi-features", l.capiFeatures)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir())
	start := time.Now()
	out, err = cmd.CombinedOutput()
	t.Logf("epp-build build %s (linux/amd64, OCI tarball): %s", l.version, time.Since(start).Round(time.Second))
	require.NoError(t, err, "%s", tail(out, 4000))
	for _, v := range l.capiVariants {
		require.Contains(t, string(out), "capi: variant "+v+" ", "the build links the double as the line's C API variant")
	}

	binary := filepath.Join(dir, "epp")
	require.NoError(t, extractEntrypoint(tarball, "linux/amd64", binary))
	return builtEPP{binary: binary, tree: tree}
}

// extractEntrypoint reads the OCI tarball's image for platform, flattens
// its layers and writes the file its entrypoint names to dst.
func extractEntrypoint(tarball, platform, dst string) error {
	idx, closeTar, err := image.OpenOCITar(tarball)
	if err != nil {
		return err
	}
	defer closeTar()
	img, err := findPlatform(idx, platform)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	if len(cfg.Config.Entrypoint) == 0 {
		return errors.New("the image has no entrypoint")
	}
	want := strings.TrimPrefix(path.Clean(cfg.Config.Entrypoint[0]), "/")
	fs := mutate.Extract(img)
	defer fs.Close()
	tr := tar.NewReader(fs)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("%s (the entrypoint) is not in the image", want)
		}
		if err != nil {
			return err
		}
		if strings.TrimPrefix(path.Clean(h.Name), "/") != want || h.Typeflag != tar.TypeReg {
			continue
		}
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
}

// findPlatform walks an index (nested indexes too) to the image for
// platform ("os/arch").
func findPlatform(idx v1.ImageIndex, platform string) (v1.Image, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, d := range m.Manifests {
		switch {
		case d.MediaType.IsIndex():
			child, err := idx.ImageIndex(d.Digest)
			if err != nil {
				return nil, err
			}
			if img, err := findPlatform(child, platform); err == nil {
				return img, nil
			}
		case d.MediaType.IsImage() && d.Platform != nil && d.Platform.OS+"/"+d.Platform.Architecture == platform:
			return idx.Image(d.Digest)
		}
	}
	return nil, fmt.Errorf("no %s image in the index", platform)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
