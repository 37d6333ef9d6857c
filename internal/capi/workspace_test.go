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
