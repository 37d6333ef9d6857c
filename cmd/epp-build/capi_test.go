package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without --capi-src, build fetches the recipe's C API pin; when that is
// unreachable the preflight says (exit 8), before anything is fetched,
// what it needs and how to do without, beside everything else missing.
func TestBuildWithoutCAPISrcSaysWhatTheUnreachablePinNeeds(t *testing.T) {
	u := newUpstream(t)
	dir := recipeDir(t, u, "v1.0.0", u.commit, nil)
	pin := "\ncapi:\n  repository: http://127.0.0.1:1/ai-dynamo/dynamo.git\n" +
		"  ref: e147ceeac0563354f530b9624d0fc90ccfa6952a\n  commit: e147ceeac0563354f530b9624d0fc90ccfa6952a\n" +
		"  dir: lib/bindings/c\n  crate: libdynamo_llm\n  library: dynamo_llm_capi\n  generation: routers\n"
	f, err := os.OpenFile(filepath.Join(dir, "recipe.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(pin)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	res := runEnv(t, t.TempDir(), []string{"BUILDKIT_HOST="}, "build", "--recipe", dir, "--tree", filepath.Join(t.TempDir(), "tree"),
		"--image", "127.0.0.1:5000/dynamo/epp:test", "--oci-tar", filepath.Join(t.TempDir(), "epp.tar"))
	assert.Equal(t, 8, res.code, res.stderr)
	for _, want := range []string{
		"preflight: 2 thing(s) this build needs are missing or unreachable",
		"BuildKit node: no BuildKit address",
		"C API pin unreachable: cannot fetch http://127.0.0.1:1/ai-dynamo/dynamo.git at e147ceeac0563354f530b9624d0fc90ccfa6952a",
		"crates.io (or a registry mirror or vendored sources in .cargo/config.toml) for the crates the workspace depends on",
		"cargo builds libdynamo_llm from the workspace root with -p libdynamo_llm",
		"Or pass --capi-src DIR: a checkout of http://127.0.0.1:1/ai-dynamo/dynamo.git at e147ceeac0563354f530b9624d0fc90ccfa6952a (the crate is lib/bindings/c inside it)",
	} {
		assert.Contains(t, res.stderr, want)
	}
}
