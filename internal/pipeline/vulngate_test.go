//go:build integration

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/vulns"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

// TestBuildVulnsGateRefusesAndPushesNothing: the fixture EPP calls
// fmt.Printf, which the double database flags (stripped, as builds strip
// it, every vulnerable symbol of fmt counts as called). With
// fail-on=called and no VEX the build stops after compiling, prints the
// findings and pushes nothing: the repository is in neither the catalog
// nor has it tags. No solve runs, so this costs the two compiles only.
func TestBuildVulnsGateRefusesAndPushesNothing(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	const repo = "dynamo/epp-vulns-refused"
	opt, out, errOut := testOptions(t, reg.Host, repo)
	gate := requireRefused(t, opt, errOut)
	assert.Equal(t, 10, gate.CLIExitCode())
	for _, want := range []string{"epp linux/amd64 (binary", "epp linux/arm64 (binary", "called     " + vulnstest.DoubleCalled, "fmt.Printf"} {
		assert.Contains(t, out.String(), want, "the findings are printed")
	}
	assert.NotContains(t, out.String(), "index digest", "no solve ran")
	assertNothingPushed(t, repo)
}

// containerGateRefuses: in container mode the gate reads the binaries
// back from the solve before its export, so a refused build leaves the
// registry without the repository. BuildKit's cache of the runs before
// answers the solve.
func containerGateRefuses(t *testing.T, opt Options) {
	const repo = "dynamo/epp-container-refused"
	var out, errOut syncBuffer
	opt.Image, opt.Report = reg.Host+"/"+repo+":v0.7.0", ""
	opt.Stdout, opt.Stderr = &out, &errOut
	requireRefused(t, opt, &errOut)
	assert.Contains(t, out.String(), "called     "+vulnstest.DoubleCalled)
	assertNothingPushed(t, repo)
}

// requireRefused builds with the gate at fail-on=called against the
// double database, with no VEX: both binaries have both findings.
func requireRefused(t *testing.T, opt Options, errOut *syncBuffer) *vulns.GateError {
	t.Helper()
	opt.Vulns = VulnsGate{FailOn: vulns.FailCalled, DB: vulnstest.DoubleDB(t)}
	start := time.Now()
	_, err := runOpts(context.Background(), testInput(t), opt)
	t.Logf("refused after %.1fs", time.Since(start).Seconds())
	var gate *vulns.GateError
	require.ErrorAs(t, err, &gate, "stderr:\n%s", errOut.String())
	assert.Equal(t, map[string]int{"epp linux/amd64": 2, "epp linux/arm64": 2}, gate.Over)
	return gate
}

// assertNothingPushed: the registry has no blob, manifest or tag of repo.
func assertNothingPushed(t *testing.T, repo string) {
	t.Helper()
	var catalog struct{ Repositories []string }
	getJSON(t, "http://"+reg.Host+"/v2/_catalog?n=1000", &catalog)
	assert.NotContains(t, catalog.Repositories, repo, "no blob or manifest was pushed")
	resp, err := http.Get("http://" + reg.Host + "/v2/" + repo + "/tags/list")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the repository has no tags")
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
}

// gateWithVEX is the gate of TestBuildHostModeEndToEnd: the double's
// findings, each answered for by the double VEX document, so the build
// passes fail-on=called and attaches its scan.
func gateWithVEX(t *testing.T) VulnsGate {
	return VulnsGate{FailOn: vulns.FailCalled, DB: vulnstest.DoubleDB(t), VEX: vulnstest.DoubleVEX(t)}
}

// assertScanAttached: the build's scan is in its report and on disk, is
// attached to the index, inspect shows it and verify passes, comparing
// each platform image's /epp with the binary scanned.
func assertScanAttached(t *testing.T, ctx context.Context, opt Options, rep *report.Report, stdout string) {
	t.Helper()
	require.NotNil(t, rep.Vulns, "the scan is in the report")
	for _, tm := range rep.Timings {
		if tm.Stage == "vulns" {
			t.Logf("the gate's scan of both binaries took %.2fs", tm.Seconds)
		}
	}
	assert.Equal(t, vulns.FailCalled, rep.Vulns.FailOn)
	require.Len(t, rep.Vulns.Targets, 2)
	for i, p := range bothPlatforms {
		tg := rep.Vulns.Targets[i]
		assert.Equal(t, p, tg.Platform)
		assert.True(t, strings.HasPrefix(tg.Digest, "sha256:"), tg.Digest)
		assert.Equal(t, vulns.Counts{Suppressed: 2}, tg.Counts(), "%s: both double findings answered for by the VEX", p)
		assert.Contains(t, stdout, "vulns "+p+": 0 called, 0 imported, 0 required, 2 suppressed (fail-on=called)")
	}
	onDisk, err := report.Read(opt.Report)
	require.NoError(t, err)
	require.NotNil(t, onDisk.Vulns)
	assert.Equal(t, rep.Vulns.Targets[0].Digest, onDisk.Vulns.Targets[0].Digest)

	ro := image.RegistryOptions{Insecure: true}
	got, err := attest.Read(ctx, opt.Image, ro)
	require.NoError(t, err)
	require.Len(t, got.Scans, 1)
	assert.Contains(t, stdout, "vulnerability scan "+got.Scans[0].Digest)
	res := got.Scans[0].Statement.Predicate.Scanner.Result
	require.Len(t, res.Images, 2)
	for i, img := range rep.Outputs.Images {
		assert.Equal(t, attest.ScannedImage{Platform: img.Platform, Digest: img.Digest, BinaryDigest: rep.Vulns.Targets[i].Digest}, res.Images[i])
	}
	var text bytes.Buffer
	require.NoError(t, got.WriteText(&text))
	assert.Contains(t, text.String(), "vulns:      "+got.Scans[0].Digest+" fail-on=called: linux/amd64 0 called, 0 imported, 0 required, 2 suppressed; linux/arm64 0 called, 0 imported, 0 required, 2 suppressed; db file://")
	start := time.Now()
	verified, err := attest.Verify(ctx, opt.Image, ro)
	t.Logf("verify, the scan's binaries compared, took %.2fs", time.Since(start).Seconds())
	require.NoError(t, err, "each image's /epp is the binary scanned")
	require.Len(t, verified.Scans, 1)
}

// assertTamperedScanFails attaches to the first build's index a scan of
// another amd64 binary: verify fails, naming the scan and both digests.
func assertTamperedScanFails(t *testing.T, ctx context.Context, repository string, rep *report.Report) {
	t.Helper()
	ro := image.RegistryOptions{Insecure: true}
	var images []attest.PlatformImage
	for _, img := range rep.Outputs.Images {
		images = append(images, attest.PlatformImage{Platform: img.Platform, Digest: img.Digest})
	}
	forged := *rep.Vulns
	forged.Targets = append([]*vulns.Target{}, rep.Vulns.Targets...)
	other := *forged.Targets[0]
	other.Digest = "sha256:" + strings.Repeat("e", 64)
	forged.Targets[0] = &other
	stmt, err := attest.NewScanStatement(repository, rep.Outputs.IndexDigest, "/epp", images, &forged, time.Now())
	require.NoError(t, err)
	tampered, err := attest.AttachScan(ctx, repository, rep.Outputs.IndexDigest, stmt, ro)
	require.NoError(t, err)
	_, err = attest.Verify(ctx, repository+"@"+rep.Outputs.IndexDigest, ro)
	var ve *attest.VerifyError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "vulnerability scan "+tampered+": it scanned a linux/amd64 binary sha256:"+strings.Repeat("e", 64)+
		", the image's /epp is "+rep.Vulns.Targets[0].Digest+": the scan is not of this image's binary")
}
