package image

import (
	"context"
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
