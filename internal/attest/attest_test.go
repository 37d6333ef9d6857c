package attest

import (
	"errors"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
)

var (
	ro            = image.RegistryOptions{Insecure: true}
	bothPlatforms = []string{"linux/amd64", "linux/arm64"}
	provAndSBOM   = []string{"https://slsa.dev/provenance/v1", SPDXPredicate}
)

func testInputs() report.Inputs {
	return report.Inputs{
		Version:        "v0.7.0",
		Upstream:       "https://github.com/kubernetes-sigs/gateway-api-inference-extension.git",
		UpstreamCommit: "978c23bb96cce25f11cea2421523cb479026e2e9",
		Patches: []report.Patch{
			{Name: "0001-add-dynamo-plugins.patch", SHA256: strings.Repeat("ab", 32)},
			{Name: "0002-wire-the-kv-router.patch", SHA256: strings.Repeat("cd", 32)},
		},
		CAPI: report.CAPI{Source: "pin", Commit: "e147ceeac0563354f530b9624d0fc90ccfa6952a", TreeHash: "t", Crate: "libdynamo_llm",
			Patches: []report.Patch{{Name: "0001-capi.patch", SHA256: strings.Repeat("ef", 32)}}},
		Toolchains: report.Toolchains{Go: "go1.26.8", Rustc: "rustc 1.85.0", CC: map[string]string{"linux/amd64": "gcc 12"}},
		Platforms:  bothPlatforms,
	}
}

// statementFor is the report statement a build makes for idx, with the
// index's own platform digests.
func statementFor(t testing.TB, repository string, idx v1.ImageIndex) *Statement {
	t.Helper()
	dgst, err := idx.Digest()
	require.NoError(t, err)
	platforms, err := ReadIndex(idx)
	require.NoError(t, err)
	var images []PlatformImage
	for _, p := range platforms {
		images = append(images, PlatformImage{Platform: p.Platform, Digest: p.Digest})
	}
	stmt, err := NewStatement(repository, dgst.String(), testInputs(), images)
	require.NoError(t, err)
	return stmt
}

func TestParseRequest(t *testing.T) {
	for _, c := range []struct {
		prov, sbom string
		want       Request
		attrs      map[string]string
	}{
		{"", "", DefaultRequest, map[string]string{"provenance": "mode=max", "sbom": ""}},
		{"true", "true", DefaultRequest, map[string]string{"provenance": "mode=max", "sbom": ""}},
		{"mode=min", "generator=reg.example/scanner@sha256:ab", Request{Provenance: true, ProvenanceMode: "min", SBOM: true, SBOMGenerator: "reg.example/scanner@sha256:ab"},
			map[string]string{"provenance": "mode=min", "sbom": "generator=reg.example/scanner@sha256:ab"}},
		{"false", "false", Request{}, map[string]string{}},
	} {
		got, err := ParseRequest(c.prov, c.sbom)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
		assert.Equal(t, c.attrs, got.FrontendAttrs())
	}
	for _, bad := range [][2]string{{"mode=full", ""}, {"yes", ""}, {"", "generator="}, {"", "scanner=x"}, {"", "generator=a,b"}} {
		_, err := ParseRequest(bad[0], bad[1])
		var fe *FlagError
		require.ErrorAs(t, err, &fe, "%q", bad)
		assert.Contains(t, err.Error(), fe.Want)
	}
}

func TestNewStatementRefusesABadDigest(t *testing.T) {
	_, err := NewStatement("r/x", "sha512:abc", testInputs(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sha512:abc")
}

func TestExplainSolveErrorNamesTheGenerator(t *testing.T) {
	def, err := ParseRequest("", "")
	require.NoError(t, err)
	pull := errors.New(`failed to resolve source metadata for docker.io/docker/buildkit-syft-scanner:stable-1: dial tcp: lookup registry-1.docker.io: no such host`)
	var ge *GeneratorError
	require.ErrorAs(t, def.ExplainSolveError(pull), &ge)
	assert.Equal(t, "docker/buildkit-syft-scanner", ge.Image)
	assert.ErrorIs(t, def.ExplainSolveError(pull), pull)
	other := errors.New("process \"/bin/sh -c go build\" did not complete successfully")
	assert.Same(t, other, def.ExplainSolveError(other))
	off, err := ParseRequest("", "false")
	require.NoError(t, err)
	assert.Same(t, pull, off.ExplainSolveError(pull), "no SBOM asked for: not the generator's fault")
}

func completeInputs() report.Inputs {
	in := testInputs()
	in.Module = &report.GoModule{Path: "sigs.k8s.io/gateway-api-inference-extension", Version: "v0.5.1"}
	in.GoModules = []report.GoModule{
		{Path: "github.com/go-logr/logr", Version: "v1.4.2", Sum: "h1:6pFjapn8bFcIbiKo3XT4j/BhANplGihG6tvd+8rYgrY="},
		{Path: "google.golang.org/grpc", Version: "v1.71.0", Sum: "h1:kF77BGdPTQ4/JZWMlb9VpJ5pa25aqvVqogsxNHHdeBg="},
	}
	in.CAPI.Version = "0.7.0"
	in.CAPI.Repository = "https://github.com/ai-dynamo/dynamo.git"
	in.Toolchains.BuilderImage = "registry.example/tools/builder@sha256:" + strings.Repeat("1", 64)
	return in
}
