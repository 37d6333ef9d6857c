//go:build integration

package image

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testenv"
)

// Two single-platform indexes, as two nodes push them (each with the
// attestation manifest BuildKit may add), become one index on a real
// registry: platforms in the order given, attestations after them with
// their annotations, the same bytes every time, and it verifies.
func TestAssembleIndexKeepsPlatformsAndAttestations(t *testing.T) {
	reg, err := imagetest.StartRegistry(t.TempDir())
	if err != nil {
		testenv.Require(t, "a registry (docker-registry)", err.Error())
	}
	defer reg.Stop()
	unknown := v1.Platform{OS: "unknown", Architecture: "unknown"}
	attestation := func(of string) map[string]string {
		return map[string]string{"vnd.docker.reference.type": "attestation-manifest", "vnd.docker.reference.digest": of}
	}
	amdRef := pushIndex(t, reg.Host, entry{indexPlatform: amd64, configArch: "amd64"},
		entry{indexPlatform: unknown, configArch: "unknown", annotations: attestation("sha256:" + strings.Repeat("a", 64))})
	armRef := pushIndex(t, reg.Host, entry{indexPlatform: arm64, configArch: "arm64"})
	digestOf := func(ref string) string { _, d, _ := strings.Cut(ref, "@"); return d }

	ctx := context.Background()
	ro := RegistryOptions{Insecure: true}
	repo := reg.Host + "/t/epp"
	dgst, err := AssembleIndex(ctx, repo, []string{digestOf(amdRef), digestOf(armRef)}, ro)
	require.NoError(t, err)
	again, err := AssembleIndex(ctx, repo, []string{digestOf(amdRef), digestOf(armRef)}, ro)
	require.NoError(t, err)
	assert.Equal(t, dgst, again, "the same parts make the same index")

	r, err := name.ParseReference(repo+"@"+dgst, name.Insecure)
	require.NoError(t, err)
	idx, err := remote.Index(r)
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	require.Len(t, im.Manifests, 3)
	assert.Equal(t, "amd64", im.Manifests[0].Platform.Architecture)
	assert.Equal(t, "arm64", im.Manifests[1].Platform.Architecture)
	assert.Equal(t, "attestation-manifest", im.Manifests[2].Annotations["vnd.docker.reference.type"])
	assert.Equal(t, "sha256:"+strings.Repeat("a", 64), im.Manifests[2].Annotations["vnd.docker.reference.digest"])

	v, err := Verify(ctx, repo+"@"+dgst, both, ro)
	require.NoError(t, err)
	assert.Len(t, v.Images, 2)
}

func TestAssembleIndexNamesAMissingPart(t *testing.T) {
	reg, err := imagetest.StartRegistry(t.TempDir())
	if err != nil {
		testenv.Require(t, "a registry (docker-registry)", err.Error())
	}
	defer reg.Stop()
	missing := "sha256:" + strings.Repeat("b", 64)
	_, err = AssembleIndex(context.Background(), reg.Host+"/t/epp", []string{missing}, RegistryOptions{Insecure: true, Steps: 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), missing)
}
