package pipeline

import (
	"context"
	"path/filepath"
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
