package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inEmptyFolder runs the binary from a folder holding nothing but a copy
// of it, as a CI runner that downloaded it does.
func inEmptyFolder(t *testing.T, env []string, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "epp-build")
	data, err := os.ReadFile(binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "GOPROXY=off", "EPP_BUILD_PATCHES="), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}

// The binary carries every recipe: from an empty folder it lists the same
// versions as the checkout's patches/, and lint finds them whole.
func TestBinaryAloneKnowsEveryVersion(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "..", "patches"))
	require.NoError(t, err)
	var want []string
	for _, e := range entries {
		want = append(want, e.Name())
	}
	r := inEmptyFolder(t, nil, "versions", "-o", "json")
	require.Equal(t, 0, r.code, r.stderr)
	for _, v := range want {
		assert.Contains(t, r.stdout, `"`+v+`"`)
	}
	r = inEmptyFolder(t, nil, "lint")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "no problems")
}

// A patches/ folder in the working directory (a checkout) wins over the
// embedded series, and --patches wins over both.
func TestCheckoutPatchesWinOverTheEmbeddedOnes(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, "patches")
	require.NoError(t, os.CopyFS(filepath.Join(local, "v0.7.0"), os.DirFS(filepath.Join("..", "..", "patches", "v0.7.0"))))
	cmd := exec.Command(binary, "versions")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "EPP_BUILD_PATCHES=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	assert.Len(t, lines, 2, "the header and the one local version: %s", out)

	r := inEmptyFolder(t, nil, "--patches", "nowhere", "versions")
	assert.NotEqual(t, 0, r.code, "an explicit --patches is never replaced by the embedded series")
}

// Commands that rewrite the series need a checkout: they do not write
// into the embedded copy.
func TestSeriesWritersNeedACheckout(t *testing.T) {
	r := inEmptyFolder(t, nil, "regen", "--version", "v0.7.0")
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "v0.7.0")
}

// A command given a recipe folder reads no series, so the embedded one is
// not written out for it.
func TestANamedRecipeLeavesTheEmbeddedSeriesUnwritten(t *testing.T) {
	cache := t.TempDir()
	r := inEmptyFolder(t, []string{"XDG_CACHE_HOME=" + cache}, "apply", "--recipe", filepath.Join(t.TempDir(), "missing"), "--out", filepath.Join(t.TempDir(), "epp"))
	assert.NotEqual(t, 0, r.code)
	assert.Contains(t, r.stderr, "missing")
	assert.NoDirExists(t, filepath.Join(cache, "epp-build", "bundled"))

	r = inEmptyFolder(t, []string{"XDG_CACHE_HOME=" + cache}, "versions")
	require.Equal(t, 0, r.code, r.stderr)
	assert.DirExists(t, filepath.Join(cache, "epp-build", "bundled"), "a command that reads the series still gets the embedded one")
}
