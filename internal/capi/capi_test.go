package capi

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/cheader"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/testenv"
)

const (
	testCrate   = "libdynamo_llm"
	testLibrary = "dynamo_llm_capi"
)

// crateCopy copies the test crate so a test may edit it.
func crateCopy(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "crate")
	src := filepath.Join("..", "..", "testdata", "image", "capi-crate")
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

func targets(t *testing.T, platforms ...string) []platform.Platform {
	t.Helper()
	ts, err := platform.Parse(platforms)
	require.NoError(t, err)
	return ts
}

// requireToolchain skips (or fails in CI) when a target cannot be built here.
func requireToolchain(t *testing.T, ts []platform.Platform) {
	t.Helper()
	testenv.Tool(t, "cargo", "builds the test C API crate")
	if _, err := FindToolchain(context.Background(), os.Environ(), ts); err != nil {
		testenv.Require(t, "a Rust toolchain for "+ts[len(ts)-1].String(), err.Error())
	}
}

func offlineEnv() []string { return append(os.Environ(), "CARGO_NET_OFFLINE=true") }

func TestBuildCachesByInputs(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src, cache := crateCopy(t), t.TempDir()
	opt := Options{SrcDir: src, Crate: testCrate, Library: testLibrary, Platforms: ts, CacheDir: cache, Env: offlineEnv()}

	first, err := Build(context.Background(), opt)
	require.NoError(t, err)
	a := first.Artifacts[0]
	assert.False(t, a.CacheHit)
	lib, err := os.ReadFile(a.Library)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(lib, []byte("!<arch>\n")), "a static library (ar archive)")
	assert.Contains(t, string(lib), "dynamo_capi_generation")
	hdr, err := os.ReadFile(a.Header)
	require.NoError(t, err)
	assert.Contains(t, string(hdr), "dynamo_llm_init(")

	second, err := Build(context.Background(), opt)
	require.NoError(t, err)
	assert.True(t, second.Artifacts[0].CacheHit, "unchanged inputs reuse the cached library")
	assert.Equal(t, a.Key, second.Artifacts[0].Key)

	// Any source change is a new key and a real build.
	f := filepath.Join(src, "src", "lib.rs")
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, append(data, []byte("\n// changed\n")...), 0o644))
	third, err := Build(context.Background(), opt)
	require.NoError(t, err)
	assert.False(t, third.Artifacts[0].CacheHit)
	assert.NotEqual(t, a.Key, third.Artifacts[0].Key)
}

func TestBuildBothArchesGivesEachArchItsOwnCode(t *testing.T) {
	ts := targets(t, "linux/amd64", "linux/arm64")
	requireToolchain(t, ts)
	res, err := Build(context.Background(), Options{SrcDir: crateCopy(t), Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv()})
	require.NoError(t, err)
	require.Len(t, res.Artifacts, 2)
	want := map[string]elf.Machine{"linux/amd64": elf.EM_X86_64, "linux/arm64": elf.EM_AARCH64}
	for _, a := range res.Artifacts {
		assert.Equal(t, want[a.Platform.String()], firstObjectMachine(t, a.Library), a.Platform.String())
	}
}

// firstObjectMachine reads the ELF machine of the first object in an ar
// archive (a Rust staticlib).
func firstObjectMachine(t *testing.T, path string) elf.Machine {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte("!<arch>\n")))
	off := 8
	for off+60 <= len(data) {
		hdr := data[off : off+60]
		size, err := strconv.Atoi(strings.TrimSpace(string(hdr[48:58])))
		require.NoError(t, err)
		body := data[off+60 : off+60+size]
		if bytes.HasPrefix(body, []byte("\x7fELF")) {
			f, err := elf.NewFile(bytes.NewReader(body))
			require.NoError(t, err)
			return f.Machine
		}
		off += 60 + size + size%2
	}
	t.Fatalf("no ELF object in %s", path)
	return 0
}

func TestCargoFailureShowsStderrTail(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src := crateCopy(t)
	require.NoError(t, os.WriteFile(filepath.Join(src, "src", "lib.rs"),
		[]byte("pub extern \"C\" fn broken() -> u32 { undefined_name_for_test }\n"), 0o644))
	_, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv()})
	var ce *CargoError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "linux/amd64", ce.Platform)
	assert.Contains(t, err.Error(), "undefined_name_for_test", "cargo's own diagnostic is shown")
	assert.Contains(t, err.Error(), "--target x86_64-unknown-linux-gnu")
}

func TestMissingCrossCompilerNamesThePackage(t *testing.T) {
	ts := targets(t, "linux/amd64", "linux/arm64")
	requireToolchain(t, ts)
	tc, err := FindToolchain(context.Background(), os.Environ(), ts)
	require.NoError(t, err)
	// A PATH with rustc and cargo but no aarch64 C compiler.
	bin := t.TempDir()
	require.NoError(t, os.Symlink(tc.Rustc, filepath.Join(bin, "rustc")))
	require.NoError(t, os.Symlink(tc.Cargo, filepath.Join(bin, "cargo")))
	gcc, err := exec.LookPath("gcc")
	require.NoError(t, err)
	require.NoError(t, os.Symlink(gcc, filepath.Join(bin, "gcc")))
	environ := append(os.Environ(), "PATH="+bin, "RUSTC="+tc.Rustc)

	_, err = Build(context.Background(), Options{SrcDir: crateCopy(t), Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: environ})
	var me *MissingToolchainError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "linux/arm64", me.Platform)
	assert.Contains(t, err.Error(), "aarch64-linux-gnu-gcc")
	assert.Contains(t, err.Error(), "gcc-aarch64-linux-gnu")
}

func TestMissingRustStdNamesThePackage(t *testing.T) {
	ts := targets(t, "linux/arm64")
	// A rustc whose sysroot holds no standard library at all.
	dir := t.TempDir()
	fake := filepath.Join(dir, "rustc")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho "+filepath.Join(dir, "sysroot")+"\n"), 0o755))
	_, err := FindToolchain(context.Background(), append(os.Environ(), "RUSTC="+fake), ts)
	var me *MissingToolchainError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, err.Error(), "aarch64-unknown-linux-gnu")
	assert.Contains(t, err.Error(), "libstd-rust-web-dev:arm64")
}

func TestCancelStopsCargo(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelOnWrite{match: "cargo build", cancel: cancel}
	_, err := Build(ctx, Options{SrcDir: crateCopy(t), Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv(), Log: w})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}

type cancelOnWrite struct {
	match  string
	cancel func()
}

func (c *cancelOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.match) {
		c.cancel()
	}
	return len(p), nil
}

func TestTestDoubleMatchesTheRealPipelineBinding(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src := filepath.Join(t.TempDir(), "capi-double")
	require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
	res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv()})
	require.NoError(t, err)
	assert.Equal(t, "dynamo_llm_capi.h", filepath.Base(res.Artifacts[0].Header), "the header the build script wrote is used")

	// The binding folder as it appears in a patched tree.
	binding := filepath.Join(t.TempDir(), "pkg", "dynamo")
	hdr, err := os.ReadFile(filepath.Join("..", "..", "ffi", "pipeline", "dynamo_llm_pipeline.h"))
	require.NoError(t, err)
	write(t, filepath.Join(binding, "dynamo_llm_pipeline.h"), string(hdr))
	_, err = Stage(res, binding, "dynamo_llm_pipeline.h", testLibrary)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(binding, "lib", "amd64", "libdynamo_llm_capi.a"))
}

// A crate feature reaches cargo and picks the header the crate's build
// script writes for it: the double built with pipeline08 satisfies the v0.8
// binding and no longer the v0.7 one, and the two builds are cached apart.
func TestCargoFeaturesSelectTheLibraryAndItsHeader(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	src := filepath.Join(t.TempDir(), "capi-double")
	require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
	cache := t.TempDir()
	build := func(features ...string) *Result {
		res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
			Features: features, Platforms: ts, CacheDir: cache, Env: offlineEnv()})
		require.NoError(t, err)
		return res
	}
	stage := func(res *Result, pkg string) error {
		binding := filepath.Join(t.TempDir(), "pkg", "dynamo")
		hdr, err := os.ReadFile(filepath.Join("..", "..", "ffi", pkg, "dynamo_llm_pipeline.h"))
		require.NoError(t, err)
		write(t, filepath.Join(binding, "dynamo_llm_pipeline.h"), string(hdr))
		_, err = Stage(res, binding, "dynamo_llm_pipeline.h", testLibrary)
		return err
	}

	v08 := build("pipeline08")
	require.NoError(t, stage(v08, "pipeline08"))
	var mismatch *cheader.MismatchError
	require.ErrorAs(t, stage(v08, "pipeline"), &mismatch, "the v0.7 binding against the v0.8 library")

	v07 := build()
	assert.False(t, v07.Artifacts[0].CacheHit, "a build without the feature is another cache entry")
	assert.NotEqual(t, v08.Artifacts[0].Key, v07.Artifacts[0].Key)
	require.NoError(t, stage(v07, "pipeline"))
	require.ErrorAs(t, stage(v07, "pipeline08"), &mismatch, "the v0.8 binding against the v0.7 library")

	assert.True(t, build("pipeline08").Artifacts[0].CacheHit)
}

// Two checkouts of the crate (two pins, or two --capi-src folders) share
// the cache's cargo target dir, so it holds one build-script output per
// checkout: each build takes the header of its own.
func TestEachCheckoutGetsItsOwnBuildScriptHeader(t *testing.T) {
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	cache := t.TempDir()
	build := func(marker string) string {
		src := filepath.Join(t.TempDir(), "capi-double")
		require.NoError(t, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "capi-double"))))
		hdr := filepath.Join(src, "include", "dynamo_llm_capi.h")
		data, err := os.ReadFile(hdr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(hdr, append(data, []byte("/* "+marker+" */\n")...), 0o644))
		res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
			Platforms: ts, CacheDir: cache, Env: offlineEnv()})
		require.NoError(t, err)
		got, err := os.ReadFile(res.Artifacts[0].Header)
		require.NoError(t, err)
		return string(got)
	}
	assert.Contains(t, build("checkout one"), "checkout one")
	assert.Contains(t, build("checkout two"), "checkout two")
}

func TestCargoFeaturesAreFeatureNames(t *testing.T) {
	_, err := Build(context.Background(), Options{SrcDir: t.TempDir(), Library: testLibrary,
		Features: []string{"pipeline08 --locked"}, Platforms: []platform.Platform{{GOOS: "linux", GOARCH: "amd64"}}, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cargo feature "pipeline08 --locked"`)
}
