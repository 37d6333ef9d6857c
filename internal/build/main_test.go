package build

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testenv"
)

// One buildkitd and one registry serve every test of this package; both
// are started here and stopped by PID when the tests end.
var (
	bk          *imagetest.BuildKit
	reg         *imagetest.Registry
	daemonsDown string // why the daemons are not available
	// sharedCache keeps the C API built once for the package: every test
	// uses the same crate content, so later tests hit the cache.
	sharedCache string
	// sbomGenerator is the syft SBOM generator image in the registry:
	// BuildKit's default generator cannot be pulled here.
	sbomGenerator string
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	// Short path: the buildkitd unix socket path must stay under ~100 bytes.
	dir, err := os.MkdirTemp("", "eppb")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	sharedCache = filepath.Join(dir, "cache")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, sub := range []string{"bk", "reg"} {
		_ = os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	if bk, err = imagetest.StartBuildKit(ctx, filepath.Join(dir, "bk")); err != nil {
		daemonsDown = "buildkitd: " + err.Error()
	} else {
		defer bk.Stop()
		if reg, err = imagetest.StartRegistry(filepath.Join(dir, "reg")); err != nil {
			daemonsDown = "registry: " + err.Error()
		} else {
			defer reg.Stop()
			if sbomGenerator, err = imagetest.SBOMGeneratorImage(ctx, reg.Host); err != nil {
				daemonsDown = "SBOM generator image: " + err.Error()
			}
		}
	}
	return m.Run()
}

// requireDaemons skips (or fails in CI) when buildkitd or the registry is
// not running.
func requireDaemons(t *testing.T) {
	t.Helper()
	if daemonsDown != "" {
		testenv.Require(t, "buildkitd and a registry", daemonsDown)
	}
}
