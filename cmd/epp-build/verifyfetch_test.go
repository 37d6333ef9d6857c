//go:build integration

package main

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/testenv"
)

// TestVerifyFailsOnWhatItCannotFetch: verify vouches only for what it
// has read. With arm64's SBOM blob deleted from a real registry, inspect
// still answers and says what it could not fetch, and verify exits 5
// naming the blob; with a second, forged report attached beside the
// consistent one, verify exits 5 naming both.
func TestVerifyFailsOnWhatItCannotFetch(t *testing.T) {
	reg, err := imagetest.StartRegistry(t.TempDir())
	if err != nil {
		testenv.Require(t, "a registry", err.Error())
	}
	t.Cleanup(reg.Stop)
	env := []string{"DOCKER_CONFIG=" + t.TempDir()}
	full := []string{"https://slsa.dev/provenance/v1", attest.SPDXPredicate}
	patches := []report.Patch{{Name: "0001-add-dynamo-plugins.patch", SHA256: strings.Repeat("ab", 32)}}
	ro := image.RegistryOptions{Insecure: true}
	ctx := context.Background()

	t.Run("deleted SBOM blob", func(t *testing.T) {
		ref := pushAttested(t, reg.Host, "dynamo/epp-nosbom", map[string][]string{"linux/amd64": full, "linux/arm64": full}, patches)
		res := runEnv(t, t.TempDir(), env, "verify", ref, "--insecure")
		require.Equal(t, 0, res.code, res.stderr)

		img, err := attest.Read(ctx, ref, ro)
		require.NoError(t, err)
		sbom := blobOf(t, ref, img, "linux/arm64", attest.SPDXPredicate)
		deleteBlob(t, reg.Host, "dynamo/epp-nosbom", sbom)

		res = runEnv(t, t.TempDir(), env, "inspect", ref, "--insecure")
		require.Equal(t, 0, res.code, res.stderr)
		assert.Contains(t, res.stdout, "sbom: missing (blob "+sbom+" 404)")
		assert.NotRegexp(t, `linux/arm64.*sbom: yes`, res.stdout)

		res = runEnv(t, t.TempDir(), env, "verify", ref, "--insecure")
		assert.Equal(t, 5, res.code, res.stderr)
		assert.Contains(t, res.stderr, "linux/arm64")
		assert.Contains(t, res.stderr, "sbom: missing (blob "+sbom+" 404)")
		assert.NotContains(t, res.stdout, "verified")
	})

	t.Run("forged second report", func(t *testing.T) {
		ref := pushAttested(t, reg.Host, "dynamo/epp-forged", map[string][]string{"linux/amd64": full, "linux/arm64": full}, patches)
		img, err := attest.Read(ctx, ref, ro)
		require.NoError(t, err)
		genuine := img.ReportDigest
		require.NotEmpty(t, genuine)

		// The forgery records this index and its platforms exactly, with
		// another patch series: it differs only in what went in.
		forged := *img.Report
		forged.Predicate.Inputs.Patches = []report.Patch{{Name: "0001-backdoor.patch", SHA256: strings.Repeat("ef", 32)}}
		forgedDigest, err := attest.Attach(ctx, img.Repository, img.IndexDigest, &forged, ro)
		require.NoError(t, err)

		res := runEnv(t, t.TempDir(), env, "verify", ref, "--insecure")
		assert.Equal(t, 5, res.code, res.stderr)
		assert.Contains(t, res.stderr, genuine)
		assert.Contains(t, res.stderr, forgedDigest)
		res = runEnv(t, t.TempDir(), env, "inspect", ref, "--insecure")
		require.Equal(t, 0, res.code, res.stderr)
		assert.NotContains(t, res.stdout, "0001-backdoor.patch", "inspect shows neither report as the index's")
	})
}

// blobOf is the digest of the in-toto blob with predicate type pt in the
// attestation manifest of platform.
func blobOf(t *testing.T, ref string, img *attest.Image, platform, pt string) string {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	for _, p := range img.Platforms {
		if p.Platform != platform {
			continue
		}
		m := manifestOf(t, r.Context().Digest(p.AttestationManifest))
		for _, l := range m.Layers {
			if l.Annotations["in-toto.io/predicate-type"] == pt {
				return l.Digest.String()
			}
		}
	}
	t.Fatalf("%s has no %s blob", platform, pt)
	return ""
}

// deleteBlob deletes a blob from the registry through its API.
func deleteBlob(t *testing.T, host, repo, digest string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, "http://"+host+"/v2/"+repo+"/blobs/"+digest, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "DELETE %s", digest)
}

func manifestOf(t *testing.T, ref name.Digest) *v1.Manifest {
	t.Helper()
	img, err := remote.Image(ref, remote.WithAuthFromKeychain(authn.DefaultKeychain))
	require.NoError(t, err)
	m, err := img.Manifest()
	require.NoError(t, err)
	return m
}
