//go:build integration

package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/builderimage"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testenv"
)

// The builder of the container compile mode is built here as a user builds
// it (epp-build builder), FROM a Debian base made on this machine and
// served by the test registry, for both platforms, once per test run; the
// container-mode tests compile in it.
var builderOnce struct {
	once   sync.Once
	base   string
	result *builderimage.Result
	err    error
}

// builderImage is the builder's digest reference: EPP_BUILD_BUILDER_IMAGE,
// else the one built for this run.
func builderImage(t testing.TB) string {
	t.Helper()
	if ref := os.Getenv("EPP_BUILD_BUILDER_IMAGE"); ref != "" {
		return ref
	}
	return builtBuilder(t).Image
}

func builtBuilder(t testing.TB) *builderimage.Result {
	t.Helper()
	if daemonsDown != "" {
		testenv.Require(t, "buildkitd and a registry", daemonsDown)
	}
	for _, p := range imagetest.BasePlatforms {
		if _, err := os.Stat(imagetest.BaseTarball(p)); err != nil {
			testenv.Require(t, "the Debian base root file systems for "+p,
				"the builder image is built FROM them: run scripts/install-test-deps.sh")
		}
	}
	builderOnce.once.Do(func() {
		ctx := context.Background()
		base, err := imagetest.DebianBase(ctx, reg.Host)
		if err != nil {
			builderOnce.err = err
			return
		}
		builderOnce.base = base
		from, to := testCache("builder")
		plan, err := builderimage.Resolve(builderimage.Options{
			Base: base, Platforms: imagetest.BasePlatforms, Image: reg.Host + "/epp-build/builder:bookworm",
			Push: true, Insecure: true, BuildKit: bk.Addr, Progress: "quiet", CacheFrom: from, CacheTo: to,
		})
		if err != nil {
			builderOnce.err = err
			return
		}
		builderOnce.result, builderOnce.err = builderimage.Build(ctx, plan, testWriter{t})
	})
	require.NoError(t, builderOnce.err)
	return builderOnce.result
}

// testCache keeps the BuildKit cache of the images the tests build FROM
// Debian (the builder, the tool image) between test runs, as the Go build
// cache is kept: their package installs, arm64's under emulation, are most
// of their time, and the base (made from the same tarballs) and the package
// lists rarely change. A changed input misses the cache and builds in
// full. EPP_BUILD_TEST_IMAGE_CACHE names the folder; "off" builds without.
func testCache(name string) (from, to []string) {
	dir := os.Getenv("EPP_BUILD_TEST_IMAGE_CACHE")
	if dir == "off" {
		return nil, nil
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, nil
		}
		dir = filepath.Join(base, "epp-build-test")
	}
	dir = filepath.Join(dir, name)
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err == nil {
		from = []string{"type=local,src=" + dir}
	}
	return from, []string{"type=local,dest=" + dir + ",mode=max"}
}

// testWriter logs the builder's notices under the test that built it.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// TestBuilderImageFromALocalBase: epp-build builder makes one image per
// platform FROM the base it is given, tags it after pushing by digest, and
// labels it with the toolchain versions read from inside it.
func TestBuilderImageFromALocalBase(t *testing.T) {
	res := builtBuilder(t)
	assert.Equal(t, builderOnce.base, res.Base)
	assert.Equal(t, []string{"linux/amd64", "linux/arm64"}, res.Platforms)
	assert.Equal(t, runtime.Version(), res.Toolchains.Go, "the Go this test runs on, as the default")
	assert.Regexp(t, `^1\.\d+\.\d+$`, res.Toolchains.Rustc)
	assert.Regexp(t, `^1\.\d+\.\d+$`, res.Toolchains.Cargo)
	assert.Regexp(t, `^0\.\d+\.\d+$`, res.Toolchains.Cbindgen)

	tag, err := name.NewTag(res.Tag, name.Insecure)
	require.NoError(t, err)
	idx, err := remote.Index(tag)
	require.NoError(t, err)
	dgst, err := idx.Digest()
	require.NoError(t, err)
	assert.Equal(t, res.Digest, dgst.String(), "the tag names the pushed digest")
	m, err := idx.IndexManifest()
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, d := range m.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" {
			continue // attestation manifests
		}
		seen[d.Platform.OS+"/"+d.Platform.Architecture] = true
		img, err := idx.Image(d.Digest)
		require.NoError(t, err)
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		labels := cf.Config.Labels
		assert.Equal(t, res.Toolchains.Go, labels[builderimage.LabelGo], d.Platform.Architecture)
		assert.Equal(t, res.Toolchains.Rustc, labels[builderimage.LabelRustc])
		assert.Equal(t, res.Toolchains.Cargo, labels[builderimage.LabelCargo])
		assert.Equal(t, res.Toolchains.Cbindgen, labels[builderimage.LabelCbindgen])
		assert.Equal(t, res.Toolchains.GCC, labels[builderimage.LabelGCC])
		assert.Equal(t, builderOnce.base, labels["org.opencontainers.image.base.name"])
		assert.Contains(t, cf.Config.Env, "GOTOOLCHAIN=local", "the builder never fetches another Go")
		assert.Equal(t, d.Platform.Architecture, cf.Architecture)
	}
	assert.Equal(t, map[string]bool{"linux/amd64": true, "linux/arm64": true}, seen)
}
