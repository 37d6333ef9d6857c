package capi

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

const (
	workspaceFixture = "../../testdata/capi-workspace"
	workspaceCrate   = "lib/bindings/c"
)

// servedWorkspace commits the Dynamo-shaped workspace fixture to a git
// repository served over HTTP and returns a C API pin for it.
func servedWorkspace(t *testing.T) *recipe.CAPI {
	t.Helper()
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "dynamo"))
	require.NoError(t, os.CopyFS(repo.Dir, os.DirFS(workspaceFixture)))
	commit := repo.Commit(t, "release", nil)
	repo.Tag(t, "v1.4.0", commit, false)
	return &recipe.CAPI{Repository: repo.HTTPURL(gitfixture.ServeHTTP(t, root)), Ref: "v1.4.0", Commit: commit,
		Dir: workspaceCrate, Crate: testCrate, Library: testLibrary, Generation: "routers"}
}

func buildCheckout(t *testing.T, c *Checkout) (*Result, []Feature, string) {
	t.Helper()
	ts := targets(t, "linux/amd64")
	requireToolchain(t, ts)
	testenv.Tool(t, "cbindgen", "the fixture's header comes from cbindgen and the crate's cbindgen.toml")
	var log bytes.Buffer
	res, err := Build(context.Background(), Options{SrcDir: c.Root, CrateDir: c.CrateDir, Crate: testCrate, Library: testLibrary,
		Platforms: ts, CacheDir: t.TempDir(), Env: offlineEnv(), Log: &log})
	require.NoError(t, err)
	features, err := Stage(res, routersVariantDir(t), "dynamo_llm_routers.h", testLibrary)
	require.NoError(t, err)
	return res, features, log.String()
}

// The release pin: the workspace is built from its root, the header comes
// from the crate's own cbindgen.toml (C++, as Dynamo's), the routers
// binding matches it, and the variants are the 1.4 line's: the 9-field
// result, add_request_with_cache_namespace, and no reservations (the
// release's library has none of their functions).
func TestPinnedWorkspaceBuildsLikeDynamosOwnBuild(t *testing.T) {
	pin := servedWorkspace(t)
	c, err := FetchPin(context.Background(), pin, t.TempDir(), nil)
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, filepath.FromSlash(workspaceCrate), c.CrateDir)
	assert.Equal(t, pin.Commit, c.Commit)

	res, features, log := buildCheckout(t, c)
	assert.Contains(t, log, "cargo build --release -p libdynamo_llm --target x86_64-unknown-linux-gnu")
	hdr, err := os.ReadFile(res.Artifacts[0].Header)
	require.NoError(t, err)
	assert.Contains(t, string(hdr), "using RouterHandlesPtr = RouterHandles*;", "cbindgen wrote C++ from the crate's config")
	assert.Contains(t, string(hdr), "__NVIDIA_DYNAMO_LLM_API__")

	assert.Equal(t, []string{"routers_add=8", "routers_reservation=none", "routers_result=9"}, Variants(features))
	assert.Equal(t, []string{"routers_add_8", "routers_reservation_none", "routers_result_9"}, Tags(features))
}

// The same pin with the backport's Rust half as a C API patch: the patch
// applies with the strict engine before cargo and the library has the
// four-call reservation form.
func TestCAPIPatchSeriesTurnsTheFeatureOn(t *testing.T) {
	pin := servedWorkspace(t)
	pin.Patches = []string{"capi/0001-add-prefill-reservation.patch"}
	pin.PatchPaths = []string{filepath.Join("testdata", "capi", "0001-add-prefill-reservation.patch")}
	c, err := FetchPin(context.Background(), pin, t.TempDir(), nil)
	require.NoError(t, err)
	defer c.Close()
	require.Len(t, c.Patches, 1)
	assert.Equal(t, "bindings/c: add the prefill reservation calls (backport)", c.Patches[0].Subject)

	res, features, _ := buildCheckout(t, c)
	assert.Equal(t, []string{"routers_add=8", "routers_reservation=4", "routers_result=9"}, Variants(features))
	assert.Contains(t, Tags(features), "routers_reservation_4")
	syms, err := ArchiveSymbols(res.Artifacts[0].Library)
	require.NoError(t, err)
	assert.True(t, syms["route_prefill_request_with_reservation"])
}

func TestCAPIPatchThatDoesNotApplyStopsTheBuild(t *testing.T) {
	pin := servedWorkspace(t)
	good, err := os.ReadFile(filepath.Join("testdata", "capi", "0001-add-prefill-reservation.patch"))
	require.NoError(t, err)
	// The backport was written against another version of lib.rs.
	bad := filepath.Join(t.TempDir(), "0001-bad.patch")
	write(t, bad, string(bytes.Replace(good, []byte("\n use std::os::raw::c_char;\n"), []byte("\n use std::os::raw::c_int;\n"), 1)))
	pin.Patches, pin.PatchPaths = []string{"capi/0001-bad.patch"}, []string{bad}
	_, err = FetchPin(context.Background(), pin, t.TempDir(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "C API patches on "+pin.Repository)
	assert.Contains(t, err.Error(), "lib/bindings/c/src/lib.rs")
}

func TestUnreachablePinSaysWhatTheBuildNeeds(t *testing.T) {
	commit := "e147ceeac0563354f530b9624d0fc90ccfa6952a"
	pin := &recipe.CAPI{Repository: "http://127.0.0.1:1/ai-dynamo/dynamo.git", Ref: commit, Commit: commit,
		Dir: workspaceCrate, Crate: testCrate, Library: testLibrary, Generation: "routers"}
	_, err := FetchPin(context.Background(), pin, t.TempDir(), nil)
	var unreachable *PinUnreachableError
	require.ErrorAs(t, err, &unreachable)
	msg := err.Error()
	for _, want := range []string{
		"cannot fetch http://127.0.0.1:1/ai-dynamo/dynamo.git at " + commit,
		"crates.io", "-p libdynamo_llm", "--capi-src DIR",
		"a checkout of http://127.0.0.1:1/ai-dynamo/dynamo.git at " + commit + " (the crate is lib/bindings/c inside it)",
	} {
		assert.Contains(t, msg, want)
	}
}

func TestLocalSourceIsAWorkspaceCheckoutOrACrate(t *testing.T) {
	pin := &recipe.CAPI{Repository: "https://github.com/ai-dynamo/dynamo.git", Dir: workspaceCrate}
	c, err := Local(workspaceFixture, pin)
	require.NoError(t, err)
	abs, _ := filepath.Abs(workspaceFixture)
	assert.Equal(t, abs, c.Root)
	assert.Equal(t, filepath.FromSlash(workspaceCrate), c.CrateDir)

	c, err = Local("../../testdata/capi-double", pin)
	require.NoError(t, err)
	assert.Empty(t, c.CrateDir, "a crate folder is its own root")

	_, err = Local(t.TempDir(), pin)
	require.ErrorContains(t, err, "want a checkout of https://github.com/ai-dynamo/dynamo.git (with lib/bindings/c/Cargo.toml) or a crate folder")
}
