//go:build e2e

package intree

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/testenv"
)

// TestReleaseImage runs docs/building-images.md's first build, v0.7.0: the real
// GAIE tree, the C API test double for both arches, one solve, a push to
// a real registry, verification and the report.
func TestReleaseImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds GAIE for two arches: minutes on two cores")
	}
	dir, err := os.MkdirTemp("", "eppi") // short: a unix socket lives here
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, sub := range []string{"bk", "reg"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
	}
	bk, err := imagetest.StartBuildKit(ctx, filepath.Join(dir, "bk"))
	if err != nil {
		testenv.Require(t, "buildkitd", err.Error())
	}
	t.Cleanup(bk.Stop)
	reg, err := imagetest.StartRegistry(filepath.Join(dir, "reg"))
	if err != nil {
		testenv.Require(t, "a registry", err.Error())
	}
	t.Cleanup(reg.Stop)

	bin := filepath.Join(dir, "epp-build")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/epp-build").CombinedOutput()
	require.NoError(t, err, "%s", out)
	crate := filepath.Join(dir, "capi-double")
	require.NoError(t, os.CopyFS(crate, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))

	ref := reg.Host + "/dynamo/epp:v0.7.0"
	reportPath := filepath.Join(dir, "build.json")
	generator, err := imagetest.SBOMGeneratorImage(ctx, reg.Host)
	if err != nil {
		testenv.Require(t, "an SBOM generator image (syft)", err.Error())
	}
	cmd := exec.Command(bin, "--patches", filepath.Join("..", "..", "patches"), "build", "--version", "v0.7.0",
		"--source", "goproxy", "--image", ref, "--platform", "linux/amd64,linux/arm64", "--push", "--insecure",
		"--capi-src", crate, "--base-image", "scratch", "--buildkit", bk.Addr, "--progress", "plain",
		"--sbom", "generator="+generator,
		"--report", reportPath, "--cache-dir", filepath.Join(dir, "cache"))
	cmd.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir(), "GONOSUMDB=sigs.k8s.io/gateway-api-inference-extension")
	start := time.Now()
	out, err = cmd.CombinedOutput()
	t.Logf("epp-build build: %s", time.Since(start).Round(time.Second))
	require.NoError(t, err, "%s", tail(out, 4000))

	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	idx, err := remote.Index(r)
	require.NoError(t, err)
	manifest, err := idx.IndexManifest()
	require.NoError(t, err)
	var platforms []string
	for _, m := range manifest.Manifests {
		if m.Platform != nil && m.Platform.OS != "unknown" {
			platforms = append(platforms, m.Platform.OS+"/"+m.Platform.Architecture)
		}
	}
	assert.ElementsMatch(t, []string{"linux/amd64", "linux/arm64"}, platforms)

	rep, err := report.Read(reportPath)
	require.NoError(t, err)
	dgst, err := idx.Digest()
	require.NoError(t, err)
	assert.Equal(t, dgst.String(), rep.Outputs.IndexDigest)
	assert.Contains(t, string(out), dgst.String(), "the index digest is printed")
	assert.Equal(t, "978c23bb96cce25f11cea2421523cb479026e2e9", rep.Inputs.UpstreamCommit)
	assert.Len(t, rep.Inputs.Patches, 5, "every patch of the series is in the report")
	assert.Len(t, rep.Outputs.Images, 2)

	// inspect prints the series of the pushed image from the registry
	// alone (no --patches, no cache), and verify finds every attestation.
	inspect := exec.Command(bin, "--patches", t.TempDir(), "inspect", ref, "--insecure", "-o", "json")
	inspect.Env = append(os.Environ(), "DOCKER_CONFIG="+t.TempDir())
	js, err := inspect.Output()
	require.NoError(t, err)
	var img attest.Image
	require.NoError(t, json.Unmarshal(js, &img))
	require.NotNil(t, img.Report)
	assert.Equal(t, rep.Inputs.Patches, img.Report.Predicate.Inputs.Patches, "inspect prints the series")
	assert.Equal(t, dgst.String(), img.IndexDigest)
	for _, p := range img.Platforms {
		assert.True(t, p.Provenance && p.SBOM, "%s: %v", p.Platform, p.PredicateTypes)
	}
	verify := exec.Command(bin, "verify", ref, "--insecure")
	verify.Env = inspect.Env
	out, err = verify.CombinedOutput()
	assert.NoError(t, err, "%s", out)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
