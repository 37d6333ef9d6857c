package bundled

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
)

func TestResolvePicksTheFirstSetGiven(t *testing.T) {
	checkout := filepath.Join(t.TempDir(), "patches")
	require.NoError(t, os.Mkdir(checkout, 0o755))
	cache := t.TempDir()
	base := Request{Command: "apply", Checkout: checkout, CacheDir: cache, EppBuild: "v1.2.3"}

	req := base
	req.Flag, req.Env = "mine", "env"
	s, err := Resolve(req)
	require.NoError(t, err)
	assert.Equal(t, "--patches mine", s.String())

	req = base
	req.Env = "env"
	s, err = Resolve(req)
	require.NoError(t, err)
	assert.Equal(t, "EPP_BUILD_PATCHES=env", s.String())

	s, err = Resolve(base)
	require.NoError(t, err)
	assert.Equal(t, Set{Kind: FromCheckout, Dir: checkout}, s)
	assert.Equal(t, "./patches", s.String())

	base.Checkout = filepath.Join(t.TempDir(), "patches")
	s, err = Resolve(base)
	require.NoError(t, err)
	assert.Equal(t, BuiltIn, s.Kind)
	assert.Equal(t, "built into epp-build v1.2.3", s.String())
	assert.NotContains(t, s.String(), cache)
	want, err := Digest()
	require.NoError(t, err)
	assert.Equal(t, want, s.Digest)
}

// Issue 34: a command that writes recipes never writes into the cached
// copy of the built-in ones; it says in one line what it needs.
func TestResolveRefusesAWriterWithoutAFolder(t *testing.T) {
	cache := t.TempDir()
	_, err := Resolve(Request{Command: "check", Checkout: filepath.Join(t.TempDir(), "patches"), CacheDir: cache, NeedsFolder: true})
	var nf *NeedsFolderError
	require.True(t, errors.As(err, &nf), "%v", err)
	assert.Equal(t, "check works on a recipes folder of your own: run it in a checkout of the recipes (with its patches/ folder) or pass --patches DIR", err.Error())
	assert.NoDirExists(t, filepath.Join(cache, "bundled"), "nothing is written out for it")
}

// Issue 34: an unknown version names the built-in versions, not a folder
// in the cache.
func TestUnknownBuiltInVersionNamesTheBuiltInSet(t *testing.T) {
	s := Set{Kind: BuiltIn, Dir: "/cache/epp-build/bundled/abc/patches", EppBuild: "v1.2.3"}
	require.NoError(t, s.CheckVersions("v0.7.0", ""))
	err := s.CheckVersions("v0.7.0", "v9.9.9")
	var nf *recipe.NotFoundError
	require.True(t, errors.As(err, &nf), "%v", err)
	assert.Contains(t, err.Error(), `version "v9.9.9": not among the recipes built into epp-build v1.2.3 (built-in versions: `)
	assert.Contains(t, err.Error(), "v0.7.0")
	assert.NotContains(t, err.Error(), "/cache")

	assert.NoError(t, Set{Kind: FromCheckout, Dir: "patches"}.CheckVersions("v9.9.9"), "a folder's own lookup names its folder")
}
