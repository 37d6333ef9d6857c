//go:build integration

package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/testenv"
)

// pushAttested pushes a BuildKit-shaped index (attestation manifests for
// the platforms in predicates) with the epp-build report attached, to a
// real registry, and returns its tag.
func pushAttested(t *testing.T, host, repo string, predicates map[string][]string, patches []report.Patch) string {
	t.Helper()
	platforms := []string{"linux/amd64", "linux/arm64"}
	idx, err := imagetest.AttestedIndex(platforms, predicates)
	require.NoError(t, err)
	ref, err := name.ParseReference(host+"/"+repo+":v0.7.0", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, idx))
	dgst, err := idx.Digest()
	require.NoError(t, err)
	got, err := attest.ReadIndex(idx)
	require.NoError(t, err)
	var images []attest.PlatformImage
	for _, p := range got {
		images = append(images, attest.PlatformImage{Platform: p.Platform, Digest: p.Digest})
	}
	stmt, err := attest.NewStatement(ref.Context().Name(), dgst.String(), report.Inputs{
		Version: "v0.7.0", Upstream: "https://github.com/kubernetes-sigs/gateway-api-inference-extension.git",
		UpstreamCommit: "978c23bb96cce25f11cea2421523cb479026e2e9", Patches: patches, Platforms: platforms,
	}, images)
	require.NoError(t, err)
	_, err = attest.Attach(context.Background(), ref.Context().Name(), dgst.String(), stmt, image.RegistryOptions{Insecure: true})
	require.NoError(t, err)
	return ref.String()
}

func TestInspectAndVerifyReadTheRegistryAlone(t *testing.T) {
	reg, err := imagetest.StartRegistry(t.TempDir())
	if err != nil {
		testenv.Require(t, "a registry", err.Error())
	}
	t.Cleanup(reg.Stop)
	env := []string{"DOCKER_CONFIG=" + t.TempDir()}
	full := []string{"https://slsa.dev/provenance/v1", attest.SPDXPredicate}
	patches := []report.Patch{
		{Name: "0001-add-dynamo-plugins.patch", SHA256: strings.Repeat("ab", 32)},
		{Name: "0002-wire-the-kv-router.patch", SHA256: strings.Repeat("cd", 32)},
	}
	good := pushAttested(t, reg.Host, "dynamo/epp", map[string][]string{"linux/amd64": full, "linux/arm64": full}, patches)

	// inspect -o json: the series, from the registry alone (no recipe:
	// --patches points nowhere).
	res := runEnv(t, t.TempDir(), env, "--patches", t.TempDir(), "inspect", good, "--insecure", "-o", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var img attest.Image
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &img))
	require.NotNil(t, img.Report)
	assert.Equal(t, patches, img.Report.Predicate.Inputs.Patches)
	assert.Len(t, img.Platforms, 2)

	res = runEnv(t, t.TempDir(), env, "inspect", good, "--insecure")
	require.Equal(t, 0, res.code, res.stderr)
	for _, p := range patches {
		assert.Contains(t, res.stdout, p.Name+"  sha256:"+p.SHA256)
	}
	assert.Contains(t, res.stdout, "978c23bb96cce25f11cea2421523cb479026e2e9")

	res = runEnv(t, t.TempDir(), env, "verify", good, "--insecure")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "verified "+good)

	// An index given to verify without arm64's attestation manifest: exit
	// 5, naming the platform and what is missing.
	bad := pushAttested(t, reg.Host, "dynamo/epp-bad", map[string][]string{"linux/amd64": full}, patches)
	res = runEnv(t, t.TempDir(), env, "verify", bad, "--insecure")
	assert.Equal(t, 5, res.code, res.stderr)
	assert.Regexp(t, `linux/arm64 \(sha256:[0-9a-f]{64}\) has no attestation manifest in the index`, res.stderr)
	assert.NotContains(t, res.stderr, "linux/amd64")

	// No reference is a usage error.
	res = runEnv(t, t.TempDir(), env, "verify", "--insecure")
	assert.Equal(t, 2, res.code, res.stderr)
}
