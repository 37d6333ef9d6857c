package image

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type entry struct {
	indexPlatform v1.Platform
	configArch    string
	annotations   map[string]string
}

// pushIndex pushes an index whose entries claim indexPlatform while their
// config says configArch, to an in-process registry, and returns the
// reference by digest.
func pushIndex(t *testing.T, host string, entries ...entry) string {
	t.Helper()
	var adds []mutate.IndexAddendum
	for _, e := range entries {
		img, err := random.Image(64, 1)
		require.NoError(t, err)
		cfg, err := img.ConfigFile()
		require.NoError(t, err)
		cfg = cfg.DeepCopy()
		cfg.OS, cfg.Architecture = "linux", e.configArch
		cfg.Config.Entrypoint = []string{"/epp"}
		img, err = mutate.ConfigFile(img, cfg)
		require.NoError(t, err)
		p := e.indexPlatform
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p, Annotations: e.annotations}})
	}
	idx := mutate.AppendManifests(empty.Index, adds...)
	ref, err := name.ParseReference(host + "/t/epp:tmp")
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, idx))
	d, err := idx.Digest()
	require.NoError(t, err)
	return host + "/t/epp@" + d.String()
}

func testRegistry(t *testing.T) string {
	srv := httptest.NewServer(registry.New())
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

var (
	amd64 = v1.Platform{OS: "linux", Architecture: "amd64"}
	arm64 = v1.Platform{OS: "linux", Architecture: "arm64"}
	both  = []string{"linux/amd64", "linux/arm64"}
)

func TestVerifyAcceptsBothPlatformsAndIgnoresAttestations(t *testing.T) {
	host := testRegistry(t)
	ref := pushIndex(t, host,
		entry{indexPlatform: amd64, configArch: "amd64"},
		entry{indexPlatform: arm64, configArch: "arm64"},
		entry{indexPlatform: v1.Platform{OS: "unknown", Architecture: "unknown"}, configArch: "unknown",
			annotations: map[string]string{"vnd.docker.reference.type": "attestation-manifest"}},
	)
	v, err := Verify(context.Background(), ref, both, RegistryOptions{Insecure: true})
	require.NoError(t, err)
	assert.Equal(t, ref[strings.Index(ref, "@")+1:], v.IndexDigest)
	require.Len(t, v.Images, 2)
	assert.Equal(t, "linux/amd64", v.Images[0].Platform)
	assert.Equal(t, "linux/arm64", v.Images[1].Platform)
	for _, img := range v.Images {
		assert.True(t, strings.HasPrefix(img.Digest, "sha256:"))
		assert.Greater(t, img.Size, int64(64))
		assert.Equal(t, []string{"/epp"}, img.Entrypoint)
	}
}

func TestVerifyCatchesMissingAndMislabelledPlatforms(t *testing.T) {
	host := testRegistry(t)
	ref := pushIndex(t, host, entry{indexPlatform: amd64, configArch: "amd64"})
	_, err := Verify(context.Background(), ref, both, RegistryOptions{Insecure: true})
	var ve *VerifyError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "platform linux/arm64 is missing")

	// An arm64 entry whose image is really amd64 (the Dynamo build-script
	// defect: one arch's binary in every platform).
	ref = pushIndex(t, host, entry{indexPlatform: amd64, configArch: "amd64"}, entry{indexPlatform: arm64, configArch: "amd64"})
	_, err = Verify(context.Background(), ref, both, RegistryOptions{Insecure: true})
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "index says linux/arm64 but the image config says linux/amd64")
}

func TestTagPointsAtTheVerifiedDigest(t *testing.T) {
	host := testRegistry(t)
	ref := pushIndex(t, host, entry{indexPlatform: amd64, configArch: "amd64"})
	ro := RegistryOptions{Insecure: true}
	require.NoError(t, Tag(context.Background(), host+"/t/epp:v1", ref, ro))
	tag, err := name.ParseReference(host + "/t/epp:v1")
	require.NoError(t, err)
	d, err := remote.Head(tag)
	require.NoError(t, err)
	assert.Equal(t, ref[strings.Index(ref, "@")+1:], d.Digest.String())
}

// elfLayer is a layer holding /epp with a minimal ELF header for machine.
func elfLayer(t *testing.T, machine uint16) v1.Layer {
	t.Helper()
	hdr := make([]byte, 64)
	copy(hdr, "\x7fELF\x02\x01\x01")
	hdr[18], hdr[19] = byte(machine), byte(machine>>8)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "epp", Mode: 0o755, Size: int64(len(hdr)), Typeflag: tar.TypeReg}))
	_, err := tw.Write(hdr)
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	require.NoError(t, err)
	return l
}

func TestVerifyCatchesAnEntrypointOfTheWrongArch(t *testing.T) {
	host := testRegistry(t)
	build := func(arch string, machine uint16) mutate.IndexAddendum {
		img, err := mutate.AppendLayers(empty.Image, elfLayer(t, machine))
		require.NoError(t, err)
		cfg, err := img.ConfigFile()
		require.NoError(t, err)
		cfg = cfg.DeepCopy()
		cfg.OS, cfg.Architecture, cfg.Config.Entrypoint = "linux", arch, []string{"/epp"}
		img, err = mutate.ConfigFile(img, cfg)
		require.NoError(t, err)
		return mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: arch}}}
	}
	push := func(adds ...mutate.IndexAddendum) string {
		idx := mutate.AppendManifests(empty.Index, adds...)
		d, err := idx.Digest()
		require.NoError(t, err)
		ref, err := name.ParseReference(host + "/t/elf@" + d.String())
		require.NoError(t, err)
		require.NoError(t, remote.WriteIndex(ref, idx))
		return ref.String()
	}
	good := push(build("amd64", 62), build("arm64", 183))
	v, err := Verify(context.Background(), good, both, RegistryOptions{Insecure: true})
	require.NoError(t, err)
	for _, img := range v.Images {
		assert.True(t, img.ArchChecked, img.Platform)
	}
	// The defect of a host-arch-only build: the amd64 binary in both.
	bad := push(build("amd64", 62), build("arm64", 62))
	_, err = Verify(context.Background(), bad, both, RegistryOptions{Insecure: true})
	require.ErrorContains(t, err, "linux/arm64 entrypoint /epp is built for ELF machine 62")
}
