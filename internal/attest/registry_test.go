//go:build integration

package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image/imagetest"
)

// Attestations pushed to and read back from the package's registry
// (integration tier: TestMain in main_test.go starts it).

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
