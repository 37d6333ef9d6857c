//go:build integration

package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testenv"
)

// One buildkitd and one registry serve every test of this package; both
// are started here and stopped by PID when the tests end.
// bk, sharedCache and sbomGenerator are in testoptions_test.go, which
// the unit tier builds too.
var (
	reg         *imagetest.Registry
	daemonsDown string // why the daemons are not available
	// testDir holds the daemons' state; bk2 is the second node, started
	// by the first test that asks for it (secondNode).
	testDir  string
	bk2      *imagetest.BuildKit
	bk2Err   error
	bk2Start sync.Once
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
	testDir = dir
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
	defer func() {
		if bk2 != nil {
			bk2.Stop() // by PID
		}
	}()
	return m.Run()
}

// secondNode is a second buildkitd with its own state, for the tests of
// per-platform nodes: both run on this machine (amd64), one building
// linux/amd64, the other linux/arm64. Host compile mode only COPYs the
// cross-compiled binaries, so neither needs emulation to build.
func secondNode(t testing.TB) *imagetest.BuildKit {
	t.Helper()
	if daemonsDown != "" {
		testenv.Require(t, "buildkitd and a registry", daemonsDown)
	}
	bk2Start.Do(func() {
		dir := filepath.Join(testDir, "bk2")
		if bk2Err = os.MkdirAll(dir, 0o755); bk2Err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		bk2, bk2Err = imagetest.StartBuildKit(ctx, dir)
	})
	if bk2Err != nil {
		testenv.Require(t, "a second buildkitd", bk2Err.Error())
	}
	return bk2
}

// requireDaemons skips (or fails in CI) when buildkitd or the registry is
// not running.
func requireDaemons(t *testing.T) {
	t.Helper()
	if daemonsDown != "" {
		testenv.Require(t, "buildkitd and a registry", daemonsDown)
	}
}
