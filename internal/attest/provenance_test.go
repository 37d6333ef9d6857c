//go:build integration

package attest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// TestProvenanceListsEveryInputByDigest: our SLSA provenance, attached
// beside the report, names the upstream commit and module version, each
// patch's SHA-256, the C API commit, crate version and patches, every Go
// module's hash and BuildKit's provenance of each platform; it reads back,
// is signed with the report, and two statements that disagree fail verify.
func TestProvenanceListsEveryInputByDigest(t *testing.T) {
	requireRegistry(t)
	ctx := context.Background()
	repository, idx := pushIndex(t, "dynamo/epp-provenance", map[string][]string{"linux/amd64": provAndSBOM, "linux/arm64": provAndSBOM})
	attach(t, repository, idx)
	dgst, err := idx.Digest()
	require.NoError(t, err)
	ref := repository + "@" + dgst.String()
	img, err := Read(ctx, ref, ro)
	require.NoError(t, err)

	in := completeInputs()
	ps, err := NewProvenance(img, in, "v9.9.9")
	require.NoError(t, err)
	again, err := NewProvenance(img, in, "v9.9.9")
	require.NoError(t, err)
	a, _ := json.Marshal(ps)
	b, _ := json.Marshal(again)
	assert.Equal(t, a, b, "the same inputs give the same statement: no timestamps, no invocation ID")

	_, err = AttachProvenance(ctx, repository, dgst.String(), ps, ro)
	require.NoError(t, err)
	img, err = Verify(ctx, ref, ro)
	require.NoError(t, err)
	require.NotEmpty(t, img.ProvenanceDigest)
	var got ProvenanceStatement
	require.NoError(t, json.Unmarshal(img.provenanceRaw, &got))
	assert.Equal(t, SLSAProvenanceV1, got.PredicateType)
	assert.Equal(t, BuildType, got.Predicate.BuildDefinition.BuildType)
	require.Len(t, got.Subject, 3, "the index and both platform images")
	assert.Equal(t, dgst.Hex, got.Subject[0].Digest["sha256"])

	deps := map[string]ResourceDescriptor{}
	for _, d := range got.Predicate.BuildDefinition.ResolvedDependencies {
		deps[d.Name] = d
	}
	up := deps["upstream"]
	assert.Equal(t, in.UpstreamCommit, up.Digest["gitCommit"])
	assert.Equal(t, "v0.5.1", up.Annotations["version"])
	assert.Equal(t, "sigs.k8s.io/gateway-api-inference-extension", up.Annotations["module"])
	for _, p := range in.Patches {
		assert.Equal(t, p.SHA256, deps["patch/"+p.Name].Digest["sha256"], p.Name)
	}
	c := deps["capi"]
	assert.Equal(t, in.CAPI.Commit, c.Digest["gitCommit"])
	assert.Equal(t, "0.7.0", c.Annotations["version"])
	assert.Equal(t, "libdynamo_llm", c.Annotations["crate"])
	assert.Equal(t, "git+https://github.com/ai-dynamo/dynamo.git@"+in.CAPI.Commit, c.URI)
	assert.Equal(t, in.CAPI.Patches[0].SHA256, deps["capi-patch/0001-capi.patch"].Digest["sha256"])
	for _, m := range in.GoModules {
		d := deps["gomod/"+m.Path]
		assert.Equal(t, m.Sum, d.Digest["dirHash"], m.Path)
		assert.Equal(t, "pkg:golang/"+m.Path+"@"+m.Version, d.URI)
	}
	require.Len(t, got.Predicate.RunDetails.Byproducts, 2, "BuildKit's provenance of each platform")
	for i, p := range img.Platforms {
		assert.Equal(t, "buildkit-provenance/"+p.Platform, got.Predicate.RunDetails.Byproducts[i].Name)
	}
	var text bytes.Buffer
	require.NoError(t, img.WriteText(&text))
	assert.Contains(t, text.String(), "provenance: "+img.ProvenanceDigest)

	// Signing signs both; verify --key wants both signed.
	keyPath, pubPath := testutil.WriteCosignKeyPair(t, t.TempDir(), "pw")
	t.Setenv(PasswordEnv, "pw")
	signer, err := LoadSigner(keyPath)
	require.NoError(t, err)
	pub, err := LoadVerifier(pubPath)
	require.NoError(t, err)
	_, err = SignReport(ctx, img, signer, ro)
	require.NoError(t, err)
	_, err = VerifySigned(ctx, ref, ro, pub)
	require.NoError(t, err)

	// A second provenance that says something else: verify fails.
	forged := *ps
	forged.Predicate.BuildDefinition.ResolvedDependencies = forged.Predicate.BuildDefinition.ResolvedDependencies[:1]
	_, err = AttachProvenance(ctx, repository, dgst.String(), &forged, ro)
	require.NoError(t, err)
	_, err = Verify(ctx, ref, ro)
	var ve *VerifyError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "skipped provenance referrer")
}
