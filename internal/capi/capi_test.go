package capi

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

func TestCargoFeaturesAreFeatureNames(t *testing.T) {
	_, err := Build(context.Background(), Options{SrcDir: t.TempDir(), Library: testLibrary,
		Features: []string{"pipeline08 --locked"}, Platforms: []platform.Platform{{GOOS: "linux", GOARCH: "amd64"}}, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cargo feature "pipeline08 --locked"`)
}
