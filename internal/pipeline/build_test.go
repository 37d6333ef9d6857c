//go:build integration

package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/cheader"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/testutil"
)

// tagExists asks the registry directly (never through a fault proxy).
func tagExists(t *testing.T, ref string) bool {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	_, err = remote.Head(r)
	return err == nil
}

func TestBuildHostModeEndToEnd(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	ctx := context.Background()
	opt, out, errOut := testOptions(t, reg.Host, "dynamo/epp")
	opt.Report = filepath.Join(t.TempDir(), "report.json")
	opt.CacheDir = t.TempDir() // a cold C API build first
	var pub string
	opt.SignKey, pub = testutil.WriteCosignKeyPair(t, t.TempDir(), "build-pass")
	t.Setenv(attest.PasswordEnv, "build-pass")
	opt.Vulns = gateWithVEX(t)
	in := testInput(t)

	rep, err := runOpts(ctx, in, opt)
	require.NoError(t, err, "stderr:\n%s", errOut.String())
	t.Run("recipe toolchain", func(t *testing.T) { hostModeBuildsWithTheRecipeToolchain(t, opt) })

	// The tag points at a verified two-platform index.
	idx, dgst := taggedIndex(t, opt.Image)
	assert.Equal(t, rep.Outputs.IndexDigest, dgst.String())
	assert.Contains(t, out.String(), "index digest: "+dgst.String())
	require.Len(t, rep.Outputs.Images, 2)
	for i, p := range bothPlatforms {
		img := rep.Outputs.Images[i]
		assert.Equal(t, p, img.Platform)
		assert.Contains(t, out.String(), p+" "+img.Digest)
		assert.Positive(t, img.Size)
		assert.Positive(t, img.BinarySize)
		assert.False(t, img.CAPICached, "first build runs cargo")
		assert.True(t, img.ArchChecked, "%s: the entrypoint's ELF machine was checked", p)
	}
	// Smoke: amd64 always runs here; arm64 runs when binfmt is registered.
	require.NotNil(t, rep.Outputs.Smoke)
	t.Logf("smoke ran on %v, skipped %v", rep.Outputs.Smoke.Ran, rep.Outputs.Smoke.Skipped)
	assert.Contains(t, rep.Outputs.Smoke.Ran, "linux/amd64")
	assert.Contains(t, errOut.String(), "usage: epp", "the entrypoint's --help ran")
	assert.Len(t, append(rep.Outputs.Smoke.Ran, keysOf(rep.Outputs.Smoke.Skipped)...), 2)

	// The report on disk says the same thing and records the inputs.
	onDisk, err := report.Read(opt.Report)
	require.NoError(t, err)
	assert.Equal(t, rep.Outputs.IndexDigest, onDisk.Outputs.IndexDigest)
	assert.Equal(t, in.UpstreamCommit, onDisk.Inputs.UpstreamCommit)
	assert.Equal(t, "https://bot:xxxxx@mirror.example/gaie.git", onDisk.Inputs.Upstream, "the upstream URL, redacted")
	assert.Equal(t, in.Patches, onDisk.Inputs.Patches)
	assert.Equal(t, in.UpstreamTime.Unix(), onDisk.Inputs.SourceDateEpoch)
	assert.Equal(t, bothPlatforms, onDisk.Inputs.Platforms)
	assert.NotEmpty(t, onDisk.Inputs.CAPI.TreeHash)
	assert.Contains(t, onDisk.Inputs.Toolchains.Rustc, "rustc")
	assert.Len(t, onDisk.Inputs.Toolchains.CC, 2)
	assert.NotEmpty(t, onDisk.Timings)

	// BuildKit's provenance and SBOM per platform, and the report referrer
	// whose subject is the index, read back from the registry alone.
	got, err := attest.Read(ctx, opt.Image, image.RegistryOptions{Insecure: true})
	require.NoError(t, err)
	require.NoError(t, got.Check(attest.WantAll))
	assert.Equal(t, dgst.String(), got.IndexDigest)
	for _, p := range got.Platforms {
		assert.True(t, p.Provenance && p.SBOM, "%s: %v", p.Platform, p.PredicateTypes)
		assert.Contains(t, p.PredicateTypes, "https://slsa.dev/provenance/v1")
	}
	// syft's SBOM names the EPP binary's Go module.
	for _, p := range got.Platforms {
		assert.Contains(t, sbomPackages(t, idx, p.AttestationManifest), "example.com/eppfixture", p.Platform)
	}
	require.NotNil(t, got.Report)
	assert.Equal(t, []attest.Subject{{Name: reg.Host + "/dynamo/epp", Digest: map[string]string{"sha256": dgst.Hex}}}, got.Report.Subject)
	assert.Equal(t, in.Patches, got.Report.Predicate.Inputs.Patches)
	assert.Equal(t, in.UpstreamCommit, got.Report.Predicate.Inputs.UpstreamCommit)
	assert.Equal(t, "https://bot:xxxxx@mirror.example/gaie.git", got.Report.Predicate.Inputs.Upstream)
	assert.Contains(t, out.String(), "report "+got.ReportDigest)
	// Our provenance beside it, and both signed with --sign-key.
	assert.NotEmpty(t, got.ProvenanceDigest, "epp-build's SLSA provenance completes BuildKit's")
	assert.Equal(t, "0.0.0-double", got.Report.Predicate.Inputs.CAPI.Version)
	verifier, err := attest.LoadVerifier(pub)
	require.NoError(t, err)
	_, err = attest.VerifySigned(ctx, opt.Image, image.RegistryOptions{Insecure: true}, verifier)
	require.NoError(t, err, "the build signed its report and provenance")
	assert.Contains(t, out.String(), "signed: report "+got.ReportDigest)
	assertScanAttached(t, ctx, opt, rep, out.String())

	// Same inputs again: no cargo, and the same platform images
	// (reproducible). The index differs: BuildKit's provenance records
	// when the build started and its invocation ID.
	opt.Stdout, opt.Stderr = io.Discard, io.Discard
	again, err := runOpts(ctx, in, opt)
	require.NoError(t, err)
	require.Len(t, again.Outputs.Images, 2)
	t.Logf("index digests of the two runs: %s, %s", rep.Outputs.IndexDigest, again.Outputs.IndexDigest)
	for i, img := range again.Outputs.Images {
		assert.Equal(t, rep.Outputs.Images[i].Digest, img.Digest, "%s: identical inputs give identical digests", img.Platform)
		assert.True(t, img.CAPICached, "%s: unchanged C API source is not rebuilt", img.Platform)
	}
	assertTamperedScanFails(t, ctx, reg.Host+"/dynamo/epp", rep)
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestBuildOCITarballOnly(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	opt, out, errOut := testOptions(t, reg.Host, "dynamo/epp-tar")
	opt.Push = false
	opt.OCITar = filepath.Join(t.TempDir(), "epp.tar")
	rep, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, errOut.String())
	assert.FileExists(t, opt.OCITar)
	entries, err := os.ReadDir(filepath.Dir(opt.OCITar))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary tarball is left beside it")
	require.Len(t, rep.Outputs.Images, 2)
	assert.Contains(t, out.String(), rep.Outputs.IndexDigest)
	assert.False(t, tagExists(t, opt.Image), "nothing is pushed without --push")

	// BuildKit's provenance and SBOM are in the tarball; the report
	// referrer needs a registry and is skipped with a notice.
	idx, closeTar, err := image.OpenOCITar(opt.OCITar)
	require.NoError(t, err)
	defer closeTar()
	platforms, err := attest.ReadIndex(idx)
	require.NoError(t, err)
	require.Len(t, platforms, 2)
	for _, p := range platforms {
		assert.True(t, p.Provenance && p.SBOM, "%s: %v", p.Platform, p.PredicateTypes)
	}
	assert.Contains(t, errOut.String(), "attest: report attestation skipped")
}

// A generator image BuildKit cannot pull fails the solve with the flags
// that get past it.
func TestUnreachableSBOMGeneratorSaysWhatToPass(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	opt, _, _ := testOptions(t, reg.Host, "dynamo/epp-nogen")
	opt.Platforms = platforms(t, "linux/"+runtime.GOARCH)
	opt.SBOM = "generator=" + reg.Host + "/nobody/scanner:missing"
	_, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
	var ge *attest.GeneratorError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, reg.Host+"/nobody/scanner:missing", ge.Image)
	assert.Contains(t, err.Error(), "--sbom=false")
	assert.False(t, tagExists(t, opt.Image))
}

// A build asked for no SBOM passes its own checks, but the index it
// pushes fails verification, naming the missing SBOM of each platform.
func TestVerifyNamesTheSBOMABuildLeftOut(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	opt, out, errOut := testOptions(t, reg.Host, "dynamo/epp-nosbom")
	opt.Platforms = platforms(t, "linux/"+runtime.GOARCH)
	opt.SBOM, opt.Provenance = "false", "mode=min"
	_, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, errOut.String())
	assert.Contains(t, out.String(), "attestations: provenance (mode=min) per platform; report ")

	got, err := attest.Read(context.Background(), opt.Image, image.RegistryOptions{Insecure: true})
	require.NoError(t, err)
	err = got.Check(attest.WantAll)
	var ve *attest.VerifyError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Problems, 1, "only the SBOM is missing: %v", ve.Problems)
	assert.Contains(t, ve.Problems[0], "linux/"+runtime.GOARCH+" (sha256:")
	assert.Contains(t, ve.Problems[0], "has no SBOM attestation")
}

// One platform still makes an index, pushed and in the tarball alike:
// BuildKit writes a lone manifest for one platform unless told otherwise,
// and everything after the solve (verify, smoke, tag) reads an index.
func TestBuildOnePlatformMakesAnIndex(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-one")
	opt.Platforms = platforms(t, "linux/"+runtime.GOARCH)
	opt.OCITar = filepath.Join(t.TempDir(), "epp.tar")
	rep, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, errOut.String())
	require.Len(t, rep.Outputs.Images, 1)
	assert.Equal(t, "linux/"+runtime.GOARCH, rep.Outputs.Images[0].Platform)
	assert.True(t, tagExists(t, opt.Image))

	// Pushed and written at once: the digest reported is the pushed
	// index's (the tarball's index has its own provenance), and both hold
	// the same platform image.
	r, err := name.ParseReference(opt.Image, name.Insecure)
	require.NoError(t, err)
	desc, err := remote.Head(r)
	require.NoError(t, err)
	assert.Equal(t, desc.Digest.String(), rep.Outputs.IndexDigest)
	idx, closeTar, err := image.OpenOCITar(opt.OCITar)
	require.NoError(t, err)
	defer closeTar()
	inTar, err := attest.ReadIndex(idx)
	require.NoError(t, err)
	require.Len(t, inTar, 1)
	assert.Equal(t, rep.Outputs.Images[0].Digest, inTar[0].Digest)
}

func TestRegistryDown(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	port, err := imagetest.FreePort()
	require.NoError(t, err)
	opt, _, _ := testOptions(t, "127.0.0.1:"+itoa(port), "dynamo/epp")
	_, err = runOpts(context.Background(), testInput(t), fastRetry(opt))
	var se *image.RegistryServerError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "127.0.0.1:"+itoa(port))
}

func TestRegistry5xxIsRetried(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	proxy := imagetest.NewFaultProxy(reg.Host, 2, 503, false)
	defer proxy.Close()
	opt, _, errOut := testOptions(t, proxy.Host, "dynamo/epp-retry")
	rep, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
	require.NoError(t, err, errOut.String())
	assert.EqualValues(t, 2, proxy.Failed(), "the injected 503s were seen and retried past")
	assert.True(t, tagExists(t, reg.Host+"/dynamo/epp-retry:v0.7.0"))
	assert.NotEmpty(t, rep.Outputs.IndexDigest)
}

func TestRegistryAlways5xxLeavesNoTag(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	proxy := imagetest.NewFaultProxy(reg.Host, -1, 503, false)
	defer proxy.Close()
	opt, _, _ := testOptions(t, proxy.Host, "dynamo/epp-down")
	_, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
	var se *image.RegistryServerError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, err.Error(), "503")
	assert.Greater(t, se.Attempts, 1, "retried before giving up")
	assert.False(t, tagExists(t, reg.Host+"/dynamo/epp-down:v0.7.0"))
}

func TestRegistryRefusesAuthWithoutLeakingCredentials(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	proxy := imagetest.NewFaultProxy(reg.Host, 0, 0, true)
	defer proxy.Close()
	const secret = "s3cret-pa55word-for-test"
	cfgDir := t.TempDir()
	auth := "dXNlcjpzM2NyZXQtcGE1NXdvcmQtZm9yLXRlc3Q=" // base64("user:" + secret)
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.json"),
		[]byte(`{"auths":{"`+proxy.Host+`":{"auth":"`+auth+`"}}}`), 0o600))
	t.Setenv("DOCKER_CONFIG", cfgDir) // ggcr's default keychain reads the process env
	opt, out, errOut := testOptions(t, proxy.Host, "dynamo/epp-auth")
	_, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
	var ae *image.RegistryAuthError
	require.ErrorAs(t, err, &ae)
	assert.True(t, proxy.SawAuthorization(), "the credentials from the Docker config were offered")
	for _, text := range []string{err.Error(), out.String(), errOut.String()} {
		assert.NotContains(t, text, secret)
		assert.NotContains(t, text, auth)
	}
	assert.False(t, tagExists(t, reg.Host+"/dynamo/epp-auth:v0.7.0"))
}

func TestCancellationMidBuildLeavesNoTag(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt, _, _ := testOptions(t, reg.Host, "dynamo/epp-cancel")
	opt.CacheDir = t.TempDir()
	// Cancel as soon as cargo starts: the C API is never cached in this
	// fresh cache folder, so cargo is certainly still running.
	opt.Stderr = cancelOnWrite{match: "cargo build", cancel: cancel}
	_, err := runOpts(ctx, testInput(t), opt)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	assert.False(t, tagExists(t, reg.Host+"/dynamo/epp-cancel:v0.7.0"))
}

type cancelOnWrite struct {
	match  string
	cancel func()
}

func (c cancelOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.match) {
		c.cancel()
	}
	return len(p), nil
}

// runnerOnly makes this process and the build see a PATH with nothing on
// it, as a runner that has only epp-build and a BuildKit address: no
// cargo, rustc, go, gcc or cross gcc. Host mode's cargo and cgo steps
// would fail at once here.
func runnerOnly(t *testing.T, opt *Options) {
	t.Helper()
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	opt.Env = []string{"PATH=" + empty, "HOME=" + t.TempDir(), "DOCKER_CONFIG=" + t.TempDir()}
	for _, tool := range []string{"cargo", "rustc", "go", "gcc", "aarch64-linux-gnu-gcc", "cbindgen"} {
		_, err := exec.LookPath(tool)
		require.Error(t, err, "%s must not be reachable in the runner environment", tool)
	}
}

func TestContainerModeBuildsEverythingInTheSolve(t *testing.T) {
	requireDaemons(t)
	builder := builderImage(t)
	opt, out, errOut := testOptions(t, reg.Host, "dynamo/epp-container")
	opt.Compile, opt.BuilderImage = CompileContainer, builder
	opt.Report = filepath.Join(t.TempDir(), "report.json")
	opt.Vulns = gateWithVEX(t)
	treeHash, err := capi.TreeHash(opt.CAPISrc)
	require.NoError(t, err)
	path := os.Getenv("PATH")
	runnerOnly(t, &opt)

	rep, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, errOut.String())

	// Cargo ran inside the solve, once per target triple.
	for _, triple := range []string{"x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"} {
		assert.Contains(t, errOut.String(), "cargo build --release -p libdynamo_llm --target "+triple)
	}
	for _, p := range bothPlatforms {
		assert.Contains(t, errOut.String(), "capi "+p+": built in the solve; binding checked against dynamo_llm_capi.h",
			"the header the crate's build script wrote was read back and checked")
	}
	// Pushed, verified (ELF machine per platform), smoke-run, tagged.
	assert.True(t, tagExists(t, opt.Image))
	_, dgst := taggedIndex(t, opt.Image)
	assert.Equal(t, rep.Outputs.IndexDigest, dgst.String())
	assert.Contains(t, out.String(), "tagged "+opt.Image)
	require.Len(t, rep.Outputs.Images, 2)
	for i, p := range bothPlatforms {
		assert.Equal(t, p, rep.Outputs.Images[i].Platform)
		assert.True(t, rep.Outputs.Images[i].ArchChecked, "%s: the entrypoint's ELF machine was checked", p)
	}
	require.NotNil(t, rep.Outputs.Smoke)
	assert.Contains(t, rep.Outputs.Smoke.Ran, "linux/amd64")

	// The report names the builder's toolchains, read back from the solve.
	onDisk, err := report.Read(opt.Report)
	require.NoError(t, err)
	tc := onDisk.Inputs.Toolchains
	assert.Equal(t, CompileContainer, tc.CompileMode)
	assert.Equal(t, builder, tc.BuilderImage)
	assert.Equal(t, runtime.Version(), tc.Go, "the builder context carries this Go")
	assert.Regexp(t, `^rustc 1\.\d+`, tc.Rustc)
	assert.Regexp(t, `^cargo 1\.\d+`, tc.Cargo)
	assert.Regexp(t, `^x86_64-linux-gnu-gcc \d+`, tc.CC["linux/amd64"])
	assert.Regexp(t, `^aarch64-linux-gnu-gcc \d+`, tc.CC["linux/arm64"])
	assert.Equal(t, treeHash, onDisk.Inputs.CAPI.TreeHash)
	assert.Equal(t, "libdynamo_llm", onDisk.Inputs.CAPI.Crate)
	var stages []string
	for _, tm := range onDisk.Timings {
		stages = append(stages, tm.Stage)
	}
	assert.Equal(t, []string{"connect", "stage", "capi", "vulns", "solve", "verify", "attest", "smoke", "tag"}, stages)
	assertScanAttached(t, context.Background(), opt, rep, out.String())

	// Same inputs again: BuildKit's cache answers, cargo does not run, and
	// the digest is the same.
	var again syncBuffer
	opt.Stderr, opt.Report = &again, ""
	rep2, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, again.String())
	assert.Equal(t, platformDigests(rep), platformDigests(rep2), "identical inputs give identical images")
	assert.NotContains(t, again.String(), "Compiling libdynamo_llm", "an unchanged C API is not rebuilt")
	t.Run("vulnerability gate refuses", func(t *testing.T) { containerGateRefuses(t, opt) })

	t.Run("recipe toolchain", func(t *testing.T) { containerModeBuildsWithTheRecipeToolchain(t, opt, path) })
}

// A C API whose header declares a parameter with another type than the Go
// binding fails the build in the solve, as in host mode: the same error
// (exit 5), and no tag.
func TestContainerModePrototypeMismatchFailsTheBuild(t *testing.T) {
	requireDaemons(t)
	builder := builderImage(t)
	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-container-mismatch")
	opt.Compile, opt.BuilderImage = CompileContainer, builder
	hdr := filepath.Join(opt.CAPISrc, "include", "dynamo_llm_capi.h")
	data, err := os.ReadFile(hdr)
	require.NoError(t, err)
	const want = "uint32_t kv_block_size);"
	require.Contains(t, string(data), want)
	require.NoError(t, os.WriteFile(hdr, []byte(strings.Replace(string(data), want, "uint64_t kv_block_size);", 1)), 0o644))
	runnerOnly(t, &opt)

	_, err = runOpts(context.Background(), testInput(t), opt)
	var mismatch *cheader.MismatchError
	require.ErrorAs(t, err, &mismatch, "stderr:\n%s", errOut.String())
	assert.Contains(t, err.Error(), "dynamo_llm_init")
	assert.Contains(t, err.Error(), "kv_block_size")
	assert.Contains(t, errOut.String(), "cargo build --release", "the C API was built in the solve")
	assert.NotContains(t, errOut.String(), "--mount=type=cache,target=/cache/gomod", "the EPP is not compiled after a failed check")
	assert.False(t, tagExists(t, opt.Image))
}

func TestContainerModeCancellationMidCargoLeavesNoTag(t *testing.T) {
	requireDaemons(t)
	builder := builderImage(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt, _, _ := testOptions(t, reg.Host, "dynamo/epp-container-cancel")
	opt.Compile, opt.BuilderImage = CompileContainer, builder
	// A source BuildKit has not built before, so cargo certainly runs.
	lib := filepath.Join(opt.CAPISrc, "src", "lib.rs")
	data, err := os.ReadFile(lib)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(lib, append(data, []byte("// "+t.Name()+" "+time.Now().String()+"\n")...), 0o644))
	opt.Stderr = cancelOnWrite{match: "cargo build", cancel: cancel}
	runnerOnly(t, &opt)

	_, err = runOpts(ctx, testInput(t), opt)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	assert.False(t, tagExists(t, opt.Image))
}

// A crate whose build writes no header and ships none gets it from the
// cbindgen CLI, run in its own stage of the same solve only then, with the
// crate's cbindgen.toml (as host mode does).
func TestContainerModeHeaderFromCbindgen(t *testing.T) {
	requireDaemons(t)
	builder := builderImage(t)
	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-container-cbindgen")
	opt.Compile, opt.BuilderImage = CompileContainer, builder
	opt.Push, opt.OCITar = false, filepath.Join(t.TempDir(), "epp.tar")
	require.NoError(t, os.Remove(filepath.Join(opt.CAPISrc, "build.rs")))
	require.NoError(t, os.RemoveAll(filepath.Join(opt.CAPISrc, "include")))
	runnerOnly(t, &opt)

	rep, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, errOut.String())
	assert.Contains(t, errOut.String(), "sh /capi/build.sh cbindgen", "the cbindgen stage ran")
	for _, p := range bothPlatforms {
		assert.Contains(t, errOut.String(), "capi "+p+": built in the solve; binding checked against dynamo_llm.h")
	}
	require.Len(t, rep.Outputs.Images, 2)
	assert.FileExists(t, opt.OCITar)
}

// sbomPackages lists the package names of the SPDX SBOM in an attestation
// manifest of idx.
func sbomPackages(t *testing.T, idx v1.ImageIndex, attestation string) []string {
	t.Helper()
	h, err := v1.NewHash(attestation)
	require.NoError(t, err)
	img, err := idx.Image(h)
	require.NoError(t, err)
	m, err := img.Manifest()
	require.NoError(t, err)
	var names []string
	for _, l := range m.Layers {
		if l.Annotations["in-toto.io/predicate-type"] != attest.SPDXPredicate {
			continue
		}
		layer, err := img.LayerByDigest(l.Digest)
		require.NoError(t, err)
		rc, err := layer.Compressed()
		require.NoError(t, err)
		var stmt struct {
			Predicate struct {
				Packages []struct {
					Name string `json:"name"`
				} `json:"packages"`
			} `json:"predicate"`
		}
		require.NoError(t, json.NewDecoder(rc).Decode(&stmt))
		rc.Close()
		for _, p := range stmt.Predicate.Packages {
			names = append(names, p.Name)
		}
	}
	return names
}

// taggedIndex reads the index a tag points at, and its digest.
func taggedIndex(t *testing.T, tag string) (v1.ImageIndex, v1.Hash) {
	t.Helper()
	r, err := name.ParseReference(tag, name.Insecure)
	require.NoError(t, err)
	idx, err := remote.Index(r)
	require.NoError(t, err)
	dgst, err := idx.Digest()
	require.NoError(t, err)
	return idx, dgst
}
