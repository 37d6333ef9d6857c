//go:build integration

package attest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testenv"
)

// One real distribution registry (Debian's docker-registry, which has no
// referrers API) serves the package's tests.
var (
	reg     *imagetest.Registry
	regDown string
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "eppa")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if reg, err = imagetest.StartRegistry(filepath.Join(dir)); err != nil {
		regDown = err.Error()
	} else {
		defer reg.Stop()
	}
	return m.Run()
}

func requireRegistry(t *testing.T) {
	t.Helper()
	if regDown != "" {
		testenv.Require(t, "a registry", regDown)
	}
}
