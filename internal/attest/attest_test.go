package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
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

// pushIndex pushes a BuildKit-shaped index to repo:tag and returns the
// repository name and the index.
func pushIndex(t testing.TB, repo string, predicates map[string][]string) (string, v1.ImageIndex) {
	t.Helper()
	idx, err := imagetest.AttestedIndex(bothPlatforms, predicates)
	require.NoError(t, err)
	ref, err := name.ParseReference(reg.Host+"/"+repo+":v0.7.0", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, idx))
	return ref.Context().Name(), idx
}

// attach makes and pushes the report statement the way a build does,
// with the index's own platform digests.
func attach(t testing.TB, repository string, idx v1.ImageIndex) string {
	t.Helper()
	dgst, err := idx.Digest()
	require.NoError(t, err)
	ref, err := Attach(context.Background(), repository, dgst.String(), statementFor(t, repository, idx), ro)
	require.NoError(t, err)
	return ref
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

func TestAttachedReportReadsBackFromTheRegistryAlone(t *testing.T) {
	requireRegistry(t)
	ctx := context.Background()
	repository, idx := pushIndex(t, "dynamo/epp", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	dgst, err := idx.Digest()
	require.NoError(t, err)
	refDigest := attach(t, repository, idx)

	img, err := Read(ctx, repository+":v0.7.0", ro)
	require.NoError(t, err)
	require.NoError(t, img.Check(WantAll))
	assert.Equal(t, dgst.String(), img.IndexDigest)
	assert.Equal(t, refDigest, img.ReportDigest)
	require.NotNil(t, img.Report)
	assert.Equal(t, StatementType, img.Report.Type)
	assert.Equal(t, PredicateType, img.Report.PredicateType)
	assert.Equal(t, []Subject{{Name: repository, Digest: map[string]string{"sha256": dgst.Hex}}}, img.Report.Subject,
		"the subject is the index")
	assert.Equal(t, testInputs(), img.Report.Predicate.Inputs)
	require.Len(t, img.Platforms, 2)
	for _, p := range img.Platforms {
		assert.True(t, p.Provenance && p.SBOM, p.Platform)
		assert.NotEmpty(t, p.AttestationManifest)
	}

	// The registry has no referrers API: ggcr kept the referrers tag
	// (sha256-<hex>), an index whose one entry is the report manifest.
	fallback, err := name.NewTag(repository+":sha256-"+dgst.Hex, name.Insecure)
	require.NoError(t, err)
	fi, err := remote.Index(fallback)
	require.NoError(t, err)
	fm, err := fi.IndexManifest()
	require.NoError(t, err)
	require.Len(t, fm.Manifests, 1)
	assert.Equal(t, refDigest, fm.Manifests[0].Digest.String())
	assert.Equal(t, MediaType, fm.Manifests[0].ArtifactType)

	// The referrer is an OCI 1.1 artifact manifest about the index.
	rr, err := name.NewDigest(repository+"@"+refDigest, name.Insecure)
	require.NoError(t, err)
	raw, err := remote.Get(rr)
	require.NoError(t, err)
	var m v1.Manifest
	require.NoError(t, json.Unmarshal(raw.Manifest, &m))
	assert.Equal(t, MediaType, m.ArtifactType)
	require.NotNil(t, m.Subject)
	assert.Equal(t, dgst, m.Subject.Digest)
	assert.Equal(t, "application/vnd.oci.empty.v1+json", string(m.Config.MediaType))

	// By digest as well as by tag; attaching the same report again adds
	// no second referrer.
	byDigest, err := Read(ctx, repository+"@"+dgst.String(), ro)
	require.NoError(t, err)
	assert.Equal(t, img.Report, byDigest.Report)
	assert.Equal(t, refDigest, attach(t, repository, idx))
	fi, err = remote.Index(fallback)
	require.NoError(t, err)
	fm, err = fi.IndexManifest()
	require.NoError(t, err)
	assert.Len(t, fm.Manifests, 1)
}

func TestCheckNamesTheMissingAttestationAndPlatform(t *testing.T) {
	requireRegistry(t)
	ctx := context.Background()
	cases := []struct {
		name       string
		predicates map[string][]string
		report     bool
		want       []string
	}{
		{"no attestation manifest for arm64", map[string][]string{"linux/amd64": provAndSBOM}, true,
			[]string{"linux/arm64 (sha256:", "has no attestation manifest in the index"}},
		{"no SBOM for amd64", map[string][]string{"linux/amd64": provAndSBOM[:1], "linux/arm64": provAndSBOM}, true,
			[]string{"linux/amd64 (sha256:", "has no SBOM attestation"}},
		{"no provenance anywhere", map[string][]string{"linux/amd64": {SPDXPredicate}, "linux/arm64": {SPDXPredicate}}, true,
			[]string{"linux/amd64 (sha256:", "linux/arm64 (sha256:", "has no SLSA provenance attestation"}},
		{"no report", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM}, false,
			[]string{"has no epp-build report attestation", PredicateType}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repository, idx := pushIndex(t, "dynamo/epp-missing-"+string(rune('a'+i)), c.predicates)
			if c.report {
				attach(t, repository, idx)
			}
			img, err := Read(ctx, repository+":v0.7.0", ro)
			require.NoError(t, err)
			err = img.Check(WantAll)
			var ve *VerifyError
			require.ErrorAs(t, err, &ve)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Len(t, ve.Problems, len(c.want)-1, "only the missing attestations are named: %v", ve.Problems)
		})
	}
}

// The attestation manifest removed from a good index (as a registry
// mirror that drops what it does not understand would): the report no
// longer matches either, because the index digest changed.
func TestAnAttestationRemovedFromTheIndexIsNamed(t *testing.T) {
	requireRegistry(t)
	repository, idx := pushIndex(t, "dynamo/epp-stripped", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	attach(t, repository, idx)
	platforms, err := ReadIndex(idx)
	require.NoError(t, err)
	stripped := mutate.RemoveManifests(idx, func(d v1.Descriptor) bool {
		return d.Digest.String() == platforms[1].AttestationManifest
	})
	ref, err := name.ParseReference(repository+":stripped", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.WriteIndex(ref, stripped))

	img, err := Read(context.Background(), ref.String(), ro)
	require.NoError(t, err)
	err = img.Check(WantAll)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "linux/arm64 ("+platforms[1].Digest+") has no attestation manifest in the index")
	assert.Contains(t, err.Error(), "has no epp-build report attestation", "the report's subject is the original index")
}

func TestCheckComparesTheReportWithTheIndex(t *testing.T) {
	requireRegistry(t)
	repository, idx := pushIndex(t, "dynamo/epp-mismatch", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	dgst, err := idx.Digest()
	require.NoError(t, err)
	platforms, err := ReadIndex(idx)
	require.NoError(t, err)
	// A report that records another amd64 image and no arm64 one.
	stmt, err := NewStatement(repository, dgst.String(), testInputs(), []PlatformImage{
		{Platform: "linux/amd64", Digest: "sha256:" + strings.Repeat("0", 64)},
	})
	require.NoError(t, err)
	_, err = Attach(context.Background(), repository, dgst.String(), stmt, ro)
	require.NoError(t, err)
	img, err := Read(context.Background(), repository+":v0.7.0", ro)
	require.NoError(t, err)
	err = img.Check(WantAll)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the report records linux/amd64 as sha256:"+strings.Repeat("0", 64)+", the index holds "+platforms[0].Digest)
	assert.Contains(t, err.Error(), "the report does not record linux/arm64")
}

func TestReadRefusesALoneManifest(t *testing.T) {
	requireRegistry(t)
	idx, err := imagetest.AttestedIndex([]string{"linux/amd64"}, nil)
	require.NoError(t, err)
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	one, err := idx.Image(im.Manifests[0].Digest)
	require.NoError(t, err)
	ref, err := name.ParseReference(reg.Host+"/dynamo/epp-single:v1", name.Insecure)
	require.NoError(t, err)
	require.NoError(t, remote.Write(ref, one))
	_, err = Read(context.Background(), ref.String(), ro)
	var ve *VerifyError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "not an image index")
}

func TestPrintShowsTheSeries(t *testing.T) {
	requireRegistry(t)
	repository, idx := pushIndex(t, "dynamo/epp-print", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": {SPDXPredicate}})
	attach(t, repository, idx)
	img, err := Read(context.Background(), repository+":v0.7.0", ro)
	require.NoError(t, err)
	var text, md bytes.Buffer
	require.NoError(t, img.WriteText(&text))
	require.NoError(t, img.WriteMarkdown(&md))
	for _, p := range testInputs().Patches {
		assert.Contains(t, text.String(), p.Name+"  sha256:"+p.SHA256)
		assert.Contains(t, md.String(), "| "+p.Name+" | "+p.SHA256+" |")
	}
	assert.Contains(t, text.String(), "978c23bb96cce25f11cea2421523cb479026e2e9")
	assert.Regexp(t, `linux/arm64 +sha256:[0-9a-f]{64} +provenance: no +sbom: yes`, text.String())
	assert.Contains(t, md.String(), "| C API: 0001-capi.patch | "+strings.Repeat("ef", 32)+" |")
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
