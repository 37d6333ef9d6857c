//go:build integration

package vulns_test

import (
	"context"
	"testing"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testutil"
	"github.com/epp-build/epp-build/internal/vulns"
	"github.com/epp-build/epp-build/internal/vulns/vulnstest"
)

// A line whose recipe names a toolchain is scanned with that Go's
// standard library: the target and every standard-library finding name
// it, not the Go at hand.
func TestALineWithAToolchainIsScannedWithItsStandardLibrary(t *testing.T) {
	toolchain := testutil.OtherGoRelease(t)
	db := vulnstest.VulnDB(t)
	env := vulns.LineEnv(&recipe.Recipe{Toolchain: toolchain}, env())
	rep, err := vulns.Scan(context.Background(), vulns.Request{Dirs: []string{fixture}, DB: db.URL, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	tg := rep.Targets[0]
	t.Logf("scanned %s with %s in %.1fs", tg.Name, tg.GoVersion, tg.Seconds)
	if tg.GoVersion != toolchain {
		t.Errorf("the scan names %s, want the line's toolchain %s", tg.GoVersion, toolchain)
	}
	for _, f := range tg.Findings {
		if f.Module == "stdlib" && f.Version != toolchain {
			t.Errorf("%s names the standard library of %s, want %s", f.ID, f.Version, toolchain)
		}
	}
}
