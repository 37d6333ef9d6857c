//go:build integration

package pipeline

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	controlapi "github.com/moby/buildkit/api/services/control"
	"github.com/moby/buildkit/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/nodes"
	"github.com/epp-build/epp-build/internal/testenv"
)

// Each platform builds on its own node (two buildkitds on this amd64
// machine: the shared one builds linux/amd64, the second linux/arm64 in
// host compile mode, which only COPYs the cross-compiled binary), the
// results are assembled into ONE index, verified, smoke-run per node and
// tagged once. The platform images are the ones a single multi-platform
// solve makes, and each node exports its own registry cache.
func TestBuildPerPlatformNodes(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	node2 := secondNode(t)
	ctx := context.Background()

	single, _, errOut := testOptions(t, reg.Host, "dynamo/epp-single")
	one, err := runOpts(ctx, testInput(t), single)
	require.NoError(t, err, errOut.String())

	armBefore, amdBefore := solvesOf(t, node2.Addr, "linux/arm64"), solvesOf(t, bk.Addr, "linux/amd64")
	opt, out, errOut := testOptions(t, reg.Host, "dynamo/epp-nodes")
	opt.BuildKit = []string{"linux/amd64=" + bk.Addr, "linux/arm64=" + node2.Addr}
	opt.Report = filepath.Join(t.TempDir(), "report.json")
	cacheRef := reg.Host + "/cache/epp-nodes:buildcache"
	opt.CacheTo = []string{"type=registry,ref=" + cacheRef + ",mode=max"}
	rep, err := runOpts(ctx, testInput(t), opt)
	require.NoError(t, err, errOut.String())
	// Each node wrote its own cache, the platform in the tag.
	for _, p := range bothPlatforms {
		ref, err := name.ParseReference(cacheRef+"-"+strings.ReplaceAll(p, "/", "-"), name.Insecure)
		require.NoError(t, err)
		_, err = remote.Head(ref)
		assert.NoError(t, err, "the %s node's cache", p)
	}

	// One index, tagged, with both platforms and nothing else.
	idx, dgst := taggedIndex(t, opt.Image)
	assert.Equal(t, rep.Outputs.IndexDigest, dgst.String())
	im, err := idx.IndexManifest()
	require.NoError(t, err)
	// Both platforms first, then BuildKit's attestation manifest of each,
	// pointing at its platform.
	require.Len(t, im.Manifests, 4)
	assert.Equal(t, "amd64", im.Manifests[0].Platform.Architecture)
	assert.Equal(t, "arm64", im.Manifests[1].Platform.Architecture)
	for i, att := range im.Manifests[2:] {
		assert.Equal(t, "attestation-manifest", att.Annotations["vnd.docker.reference.type"])
		assert.Equal(t, im.Manifests[i].Digest.String(), att.Annotations["vnd.docker.reference.digest"])
	}

	// The same platform images as one solve on one node.
	require.Len(t, rep.Outputs.Images, 2)
	for i, img := range rep.Outputs.Images {
		assert.Equal(t, one.Outputs.Images[i].Digest, img.Digest, "%s: same image from its own node", img.Platform)
	}
	assert.Equal(t, bk.Addr, rep.Outputs.Images[0].Node)
	assert.Equal(t, node2.Addr, rep.Outputs.Images[1].Node)
	assert.Greater(t, solvesOf(t, node2.Addr, "linux/arm64"), armBefore, "the second node solved linux/arm64")
	assert.Greater(t, solvesOf(t, bk.Addr, "linux/amd64"), amdBefore, "the first node solved linux/amd64")
	assert.Contains(t, errOut.String(), "[linux/arm64] #", "each node's progress is labelled")
	assert.Contains(t, errOut.String(), "[linux/arm64] smoke linux/arm64: ", "the smoke run too")
	assert.Contains(t, errOut.String(), "linux/arm64 on "+node2.Addr+": index sha256:")
	assert.Contains(t, out.String(), "tagged "+opt.Image)

	// Smoke per node: amd64 always runs; arm64 where qemu binfmt is registered.
	require.NotNil(t, rep.Outputs.Smoke)
	assert.Contains(t, rep.Outputs.Smoke.Ran, "linux/amd64")
	assert.Len(t, append(rep.Outputs.Smoke.Ran, keysOf(rep.Outputs.Smoke.Skipped)...), 2)
	t.Logf("smoke ran on %v, skipped %v", rep.Outputs.Smoke.Ran, rep.Outputs.Smoke.Skipped)
}

// A node nobody listens on fails the build at connect, before cargo or
// any solve, naming its platform and address; no tag moves.
func TestBuildNodeDownFailsNamingIt(t *testing.T) {
	requireDaemons(t)
	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-node-down")
	down := "unix://" + filepath.Join(t.TempDir(), "nobody-listens.sock")
	opt.BuildKit = []string{"linux/amd64=" + bk.Addr + ",linux/arm64=" + down}
	start := time.Now()
	_, err := runOpts(context.Background(), testInput(t), opt)
	var ne *nodes.NodeError
	require.ErrorAs(t, err, &ne)
	assert.Equal(t, []string{"linux/arm64"}, ne.Platforms)
	assert.Contains(t, err.Error(), "linux/arm64")
	assert.Contains(t, err.Error(), down)
	var ue *image.UnreachableError
	assert.ErrorAs(t, err, &ue)
	assert.NotContains(t, errOut.String(), "cargo", "nothing was built")
	t.Logf("error: %v", err)
	assert.False(t, tagExists(t, opt.Image))
	t.Logf("failed after %s", time.Since(start))
}

// A node whose registry push fails (here: a registry that refuses every
// request, so both nodes fail) fails the build naming a node; no tag.
func TestBuildNodeSolveFailsNamingIt(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	node2 := secondNode(t)
	opt, _, errOut := testOptions(t, "127.0.0.1:1", "dynamo/epp-node-fails")
	opt.BuildKit = []string{"linux/amd64=" + bk.Addr, "linux/arm64=" + node2.Addr}
	_, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
	var ne *nodes.NodeError
	require.ErrorAs(t, err, &ne, errOut.String())
	assert.Contains(t, err.Error(), "BuildKit node for linux/")
	var se *image.RegistryServerError
	assert.ErrorAs(t, err, &se)
	t.Logf("error: %v", err)
}

// The CI runner's case: no toolchain here, the C API and the EPP built
// inside the solve, each platform on its own node (two amd64 daemons; the
// arm64 one cross-compiles from its build platform, nothing is emulated),
// one index, attested and tagged.
func TestContainerModePerPlatformNodes(t *testing.T) {
	requireDaemons(t)
	node2 := secondNode(t)
	builder := builderImage(t)
	opt, out, errOut := testOptions(t, reg.Host, "dynamo/epp-nodes-container")
	opt.Compile, opt.BuilderImage = CompileContainer, builder
	opt.BuildKit = []string{"linux/amd64=" + bk.Addr, "linux/arm64=" + node2.Addr}
	runnerOnly(t, &opt)

	rep, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, errOut.String())
	for _, p := range bothPlatforms {
		assert.Contains(t, errOut.String(), "capi "+p+": built in the solve; binding checked against", "each node checked its own platform")
	}
	require.Len(t, rep.Outputs.Images, 2)
	assert.Equal(t, bk.Addr, rep.Outputs.Images[0].Node)
	assert.Equal(t, node2.Addr, rep.Outputs.Images[1].Node)
	for _, img := range rep.Outputs.Images {
		assert.True(t, img.ArchChecked, img.Platform)
	}
	assert.Equal(t, []string{"x86_64-linux-gnu-gcc", "aarch64-linux-gnu-gcc"},
		[]string{strings.Fields(rep.Inputs.Toolchains.CC["linux/amd64"])[0], strings.Fields(rep.Inputs.Toolchains.CC["linux/arm64"])[0]},
		"both nodes' compilers are in the report")
	assert.Contains(t, out.String(), "tagged "+opt.Image)
}

// A node that connects and builds but then fails (here its runtime
// cannot run anything, so the smoke run on it fails) fails the build
// naming that node, and the tag stays where it was.
func TestBuildNodeFailingLateMovesNoTag(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	ctx := context.Background()
	dir, err := os.MkdirTemp(testDir, "bad")
	require.NoError(t, err)
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	broken, err := imagetest.StartBuildKit(startCtx, dir, "--oci-worker-binary=/bin/false")
	if err != nil {
		testenv.Require(t, "a third buildkitd", err.Error())
	}
	defer broken.Stop()

	// The tag first points at an earlier build (another epoch, another digest).
	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-node-late")
	earlier := testInput(t)
	earlier.UpstreamTime = earlier.UpstreamTime.Add(-time.Hour)
	prev, err := runOpts(ctx, earlier, opt)
	require.NoError(t, err, errOut.String())

	opt, _, errOut = testOptions(t, reg.Host, "dynamo/epp-node-late")
	opt.BuildKit = []string{"linux/amd64=" + bk.Addr, "linux/arm64=" + broken.Addr}
	// No SBOM: its scan would be the first process the broken node runs,
	// and this test is about a failure after the image is pushed.
	opt.SBOM = "false"
	_, err = runOpts(ctx, testInput(t), opt)
	var ne *nodes.NodeError
	require.ErrorAs(t, err, &ne, errOut.String())
	assert.Equal(t, []string{"linux/arm64"}, ne.Platforms)
	assert.Contains(t, err.Error(), broken.Addr)
	var se *image.SmokeError
	assert.ErrorAs(t, err, &se)
	assert.Equal(t, prev.Outputs.IndexDigest, tagDigest(t, opt.Image), "the tag did not move")
	t.Logf("error: %v", err)
}

func tagDigest(t *testing.T, ref string) string {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	d, err := remote.Head(r)
	require.NoError(t, err)
	return d.Digest.String()
}

// solvesOf counts the daemon's recorded solves for exactly this platform
// (its build history, as `buildctl debug history` shows it).
func solvesOf(t *testing.T, addr, platform string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.New(ctx, addr)
	require.NoError(t, err)
	defer c.Close()
	stream, err := c.ControlClient().ListenBuildHistory(ctx, &controlapi.BuildHistoryRequest{EarlyExit: true})
	require.NoError(t, err)
	n := 0
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return n
		}
		require.NoError(t, err)
		if rec := ev.GetRecord(); rec != nil && rec.FrontendAttrs["platform"] == platform {
			n++
		}
	}
}
