package build

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/recipe"
)

// unreachablePin is a C API pin whose repository nobody serves.
func unreachablePin() *recipe.CAPI {
	return &recipe.CAPI{Repository: "http://127.0.0.1:1/ai-dynamo/dynamo.git", Ref: "v0.7.0",
		Commit: "f49d6873e417ef82090ed492ef00b6939bd5a8d0", Dir: "lib/bindings/c", Crate: "libdynamo_llm", Library: "dynamo_llm_capi", Generation: "pipeline"}
}

// Everything missing at once: the node, the registry and the C API pin
// are all reported in one error, each with the flag that changes it, and
// nothing is applied.
func TestPreflightListsEverythingMissingAtOnce(t *testing.T) {
	opt, _, _ := testOptions(t, "127.0.0.1:1", "dynamo/epp")
	opt.BuildKit = []string{"unix://" + filepath.Join(t.TempDir(), "nobody-listens.sock")}
	opt.CAPISrc = ""
	cache := t.TempDir()
	req := Request{Recipe: &recipe.Recipe{Version: "v0.7.0", CAPI: unreachablePin()},
		Apply: apply.Options{Fetcher: apply.Fetcher{CacheDir: cache}}}

	_, err := Release(context.Background(), mustResolve(t, opt), req)
	var pe *PreflightError
	require.ErrorAs(t, err, &pe)
	var whats []string
	for _, m := range pe.Missing {
		whats = append(whats, m.What)
	}
	require.Len(t, pe.Missing, 3, "%v", whats)
	assert.Contains(t, pe.Missing[0].What, "nobody-listens.sock")
	assert.Contains(t, pe.Missing[0].Fix, "--buildkit")
	assert.Equal(t, "registry 127.0.0.1:1 (push to 127.0.0.1:1/dynamo/epp)", pe.Missing[1].What)
	assert.Contains(t, pe.Missing[1].Fix, "--insecure")
	assert.Contains(t, pe.Missing[2].What, "C API pin http://127.0.0.1:1/ai-dynamo/dynamo.git@v0.7.0")
	assert.Contains(t, pe.Missing[2].Fix, "--capi-src")
	assert.Contains(t, err.Error(), "3 thing(s) this build needs are missing")
	assert.NoDirExists(t, filepath.Join(cache, "trees"), "nothing applied")
}

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
