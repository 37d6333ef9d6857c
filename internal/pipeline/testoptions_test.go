package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/testenv"
)

// The daemons' handles are set by TestMain (main_test.go) in the
// integration tier; the unit tier builds without it and sees them unset.
var (
	bk *imagetest.BuildKit
	// sharedCache keeps the C API built once for the package: every test
	// uses the same crate content, so later tests hit the cache.
	sharedCache string
	// sbomGenerator is the syft SBOM generator image in the registry:
	// BuildKit's default generator cannot be pulled here.
	sbomGenerator string
)

var bothPlatforms = []string{"linux/amd64", "linux/arm64"}

// platforms parses platform names as the command line does.
func platforms(t testing.TB, names ...string) []platform.Platform {
	t.Helper()
	ps, err := platform.Parse(names)
	require.NoError(t, err)
	return ps
}

func fixture(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "testdata", "image"}, parts...)...)
}

// copyFixture copies a fixture so cargo or the build may write next to it.
func copyFixture(t testing.TB, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.CopyFS(dst, os.DirFS(fixture(name))))
	return dst
}

func testInput(t testing.TB) Input {
	return Input{
		TreeDir: copyFixture(t, "epp-tree"),
		// As the source stage hands it on: the URL already redacted.
		Upstream: source.Upstream{
			Repository:     "https://bot:xxxxx@mirror.example/gaie.git",
			UpstreamCommit: "978c23bb96cce25f11cea2421523cb479026e2e9",
			UpstreamTime:   time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC),
		},
		Patches: []PatchDigest{{Name: "0001-test.patch", SHA256: strings.Repeat("ab", 32)}},
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testOptions(t testing.TB, registryHost, repo string) (Options, *syncBuffer, *syncBuffer) {
	var out, errOut syncBuffer
	// The option checks run without a buildkitd; only a solve needs one.
	var bkAddr string
	if bk != nil {
		bkAddr = bk.Addr
	}
	// Without the daemons (the unit tier has no TestMain) no test solves:
	// the default generator and a cache of the test's own pass the checks.
	sbom, cacheDir := "true", t.TempDir()
	if sbomGenerator != "" {
		sbom = "generator=" + sbomGenerator
	}
	if sharedCache != "" {
		cacheDir = sharedCache
	}
	return Options{
		Image:     registryHost + "/" + repo + ":v0.7.0",
		Platforms: platforms(t, bothPlatforms...),
		Push:      true,
		BuildKit:  []string{bkAddr},
		Insecure:  true,
		CAPISrc:   copyCAPIDouble(t),
		Compile:   CompileHost,
		Progress:  "plain",
		BaseImage: "scratch",
		SBOM:      sbom,
		CacheDir:  cacheDir,
		Stdout:    &out,
		Stderr:    &errOut,
		Env:       append(os.Environ(), "CARGO_NET_OFFLINE=true", "DOCKER_CONFIG="+t.TempDir()),
	}, &out, &errOut
}

func requireToolchains(t *testing.T) {
	t.Helper()
	ts := platforms(t, bothPlatforms...)
	if _, err := capi.FindToolchain(context.Background(), os.Environ(), ts); err != nil {
		testenv.Require(t, "Rust and C toolchains for both arches", err.Error())
	}
}
