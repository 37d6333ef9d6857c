package pipeline

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/recipe"
)

func TestThePlanTakesTheRecipesToolchain(t *testing.T) {
	o := Options{CacheDir: t.TempDir()}
	var p plan
	require.NoError(t, o.complete(&p, Input{TreeDir: t.TempDir(), Recipe: &recipe.Recipe{Toolchain: "go1.26.10"}}))
	assert.Equal(t, "go1.26.10", p.toolchain)
	assert.Equal(t, "go1.26.10", hostGoVersion(&p), "the report credits the recipe's Go")

	var none plan
	require.NoError(t, o.complete(&none, Input{TreeDir: t.TempDir()}))
	assert.Empty(t, none.toolchain)
	assert.Equal(t, runtime.Version(), hostGoVersion(&none), "without a toolchain, the Go at hand")
}

// The builder runs on the build platform: this machine's arch for a local
// node, the target's for a node per platform; each toolchain once.
func TestBuildArchesAreThisMachinesAndTheTargets(t *testing.T) {
	targets := []platform.Platform{{GOOS: "linux", GOARCH: "amd64"}, {GOOS: "linux", GOARCH: "arm64"}}
	got := buildArches(targets)
	assert.Equal(t, runtime.GOARCH, got[0])
	assert.Subset(t, got, []string{"amd64", "arm64"})
	seen := map[string]bool{}
	for _, arch := range got {
		assert.False(t, seen[arch], "%s listed twice", arch)
		seen[arch] = true
	}
}
