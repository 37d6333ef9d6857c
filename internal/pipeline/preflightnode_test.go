//go:build integration

package pipeline

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

// The preflight checks that ask the package's buildkitd and registry
// (integration tier); the rest of preflight is in preflight_test.go.

// A --capi-src that is no crate is named before the build starts.
func TestPreflightNamesABadCAPISrc(t *testing.T) {
	requireDaemons(t)
	opt, _, _ := testOptions(t, reg.Host, "dynamo/epp-preflight-src")
	opt.CAPISrc = t.TempDir()
	err := Preflight(context.Background(), mustResolve(t, opt), Request{Recipe: &recipe.Recipe{Version: "v0.7.0"}})
	var pe *PreflightError
	require.ErrorAs(t, err, &pe)
	require.Len(t, pe.Missing, 1)
	assert.Equal(t, "C API source", pe.Missing[0].What)
	assert.Contains(t, err.Error(), "no Cargo.toml")
}

// The images the solve pulls are resolved by the node that pulls them:
// a builder and an SBOM generator it cannot find are both named, with
// their flags; with everything there the preflight passes.
func TestPreflightResolvesTheImagesOnTheNode(t *testing.T) {
	requireDaemons(t)
	opt, _, _ := testOptions(t, reg.Host, "dynamo/epp-preflight")
	opt.Platforms = platforms(t, "linux/"+runtime.GOARCH)
	require.NoError(t, Preflight(context.Background(), mustResolve(t, opt), Request{Recipe: &recipe.Recipe{Version: "v0.7.0"}}))

	opt.Compile, opt.BuilderImage = CompileContainer, reg.Host+"/nobody/builder:missing"
	opt.SBOM = "generator=" + reg.Host + "/nobody/scanner:missing"
	err := Preflight(context.Background(), mustResolve(t, opt), Request{Recipe: &recipe.Recipe{Version: "v0.7.0"}})
	var pe *PreflightError
	require.ErrorAs(t, err, &pe)
	require.Len(t, pe.Missing, 2, err.Error())
	fixes := pe.Missing[0].Fix + " " + pe.Missing[1].Fix
	assert.Contains(t, fixes, "--builder-image")
	assert.Contains(t, fixes, "--sbom=false")
	assert.Contains(t, err.Error(), reg.Host+"/nobody/builder:missing")
	assert.Contains(t, err.Error(), reg.Host+"/nobody/scanner:missing")
}
