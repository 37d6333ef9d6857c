package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/bundled"
	"github.com/epp-build/epp-build/internal/guard"
	"github.com/epp-build/epp-build/internal/report"
)

// inEmptyFolder runs the binary from a folder holding nothing but a copy
// of it, as a CI runner that downloaded it does.
func inEmptyFolder(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return inFolder(t, t.TempDir(), env, args...)
}

// inFolder runs a copy of the binary in dir, with a cache of its own
// unless env names one.
func inFolder(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
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
// embedded series, and --patches wins over both. Issue 36: each command
// that reads recipes says on stderr, in one line, which set it used.
func TestCheckoutPatchesWinOverTheEmbeddedOnes(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, "patches")
	require.NoError(t, os.CopyFS(filepath.Join(local, "v0.7.0"), os.DirFS(filepath.Join("..", "..", "patches", "v0.7.0"))))
	r := inFolder(t, dir, nil, "versions")
	require.Equal(t, 0, r.code, r.stderr)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	assert.Len(t, lines, 2, "the header and the one local version: %s", r.stdout)
	assert.Equal(t, "epp-build: recipes: ./patches\n", r.stderr)

	r = inEmptyFolder(t, nil, "versions")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^epp-build: recipes: built into epp-build \S+\n$`, r.stderr)

	r = inEmptyFolder(t, []string{"EPP_BUILD_PATCHES=" + local}, "versions")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "epp-build: recipes: EPP_BUILD_PATCHES="+local+"\n", r.stderr)

	r = inEmptyFolder(t, []string{"EPP_BUILD_PATCHES=" + local}, "--patches", local, "build", "--dry-run", "--push", "--version", "v0.7.0", "--image", "127.0.0.1:1/epp:v0.7.0")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "epp-build: recipes: --patches "+local+"\n")

	r = inEmptyFolder(t, nil, "--patches", "nowhere", "versions")
	assert.NotEqual(t, 0, r.code, "an explicit --patches is never replaced by the embedded series")
}

// Issue 34: --patches has no "patches" default to show; its default
// depends on the working directory.
func TestPatchesHelpShowsNoFalseDefault(t *testing.T) {
	r := inEmptyFolder(t, nil, "versions", "--help")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "--patches")
	assert.NotContains(t, r.stdout, `(default "patches")`)
}

// Issue 34: an unknown version names the built-in versions, never the
// copy of them in the cache.
func TestUnknownBuiltInVersionShowsNoCachePath(t *testing.T) {
	cache := t.TempDir()
	r := inEmptyFolder(t, []string{"XDG_CACHE_HOME=" + cache}, "apply", "--version", "v9.9.9", "--out", filepath.Join(t.TempDir(), "out"))
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, `version "v9.9.9": not among the recipes built into epp-build`)
	assert.Contains(t, r.stderr, "v0.7.0")
	assert.NotContains(t, r.stderr, cache)
	assert.NotContains(t, r.stderr, "bundled")
}

// Issue 34: completion offers the built-in versions where there is no
// patches/ folder.
func TestCompletionOffersTheBuiltInVersions(t *testing.T) {
	r := inEmptyFolder(t, nil, "__complete", "apply", "--version", "v0.7")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, strings.Split(r.stdout, "\n"), "v0.7.0")
	r = inEmptyFolder(t, nil, "__complete", "--patches", "nowhere", "apply", "--version", "v0.7")
	assert.NotContains(t, r.stdout, "v0.7.0", "a --patches that cannot be read offers nothing")
}

// Issue 36: the copy of the built-in recipes in the cache is checked on
// every use; a line planted in one of its patches is never read.
func TestAChangedCacheCopyIsWrittenAgain(t *testing.T) {
	cache := t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	r := inEmptyFolder(t, env, "versions")
	require.Equal(t, 0, r.code, r.stderr)
	patches, err := filepath.Glob(filepath.Join(cache, "epp-build", "bundled", "*", "patches", "v0.7.0", "*.patch"))
	require.NoError(t, err)
	require.NotEmpty(t, patches)
	want, err := os.ReadFile(patches[0])
	require.NoError(t, err)
	planted := "diff --git a/BACKDOOR.txt b/BACKDOOR.txt\nnew file mode 100644\n--- /dev/null\n+++ b/BACKDOOR.txt\n@@ -0,0 +1 @@\n+planted\n"
	require.NoError(t, os.WriteFile(patches[0], append(append([]byte{}, want...), planted...), 0o644))

	r = inEmptyFolder(t, env, "lint")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "epp-build: warning: the cached copy of the built-in recipes differed from this binary's and was written again\n")
	got, err := os.ReadFile(patches[0])
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "the planted line is gone")
}

// Issue 34: commands that rewrite the series (or report on a checkout)
// need a folder of the user's: they say so in one line, a usage error, and
// write nothing into the cache.
func TestSeriesWritersNeedACheckout(t *testing.T) {
	cache := t.TempDir()
	for _, args := range [][]string{
		{"regen", "--version", "v0.7.0"},
		{"check", "--version", "v0.7.0"},
		{"series", "move", "--version", "v0.7.0", "0001", "--to", "1"},
		{"pick", "--version", "v0.7.9", "--extends", "v0.7.0", "--reason", "r", "x.patch"},
		{"rebase", "--version", "v0.7.0", "--onto", "v0.5.2", "--as", "v0.7.9"},
		{"apply", "--regen", "--version", "v0.7.0", "--out", "out"},
	} {
		r := inEmptyFolder(t, []string{"XDG_CACHE_HOME=" + cache}, args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.Equal(t, "epp-build: "+strings.Join(args[:commandWords(args)], " ")+
			" works on a recipes folder of your own: run it in a checkout of the recipes (with its patches/ folder) or pass --patches DIR\n", r.stderr, "%v", args)
	}
	assert.NoDirExists(t, filepath.Join(cache, "epp-build", "bundled"))

	r := inEmptyFolder(t, nil, "series", "list", "--version", "v0.7.0")
	assert.Equal(t, 0, r.code, "listing a series only reads it: %s", r.stderr)
}

// status with only the binary reports on applied trees and says that the
// rest concerns a checkout, naming no path inside the tool's cache.
func TestStatusFromTheBuiltInRecipesNamesNoCachePath(t *testing.T) {
	cache := t.TempDir()
	for _, args := range [][]string{{"status"}, {"status", "-o", "json"}} {
		r := inEmptyFolder(t, []string{"XDG_CACHE_HOME=" + cache}, args...)
		require.Equal(t, 0, r.code, "%v: %s", args, r.stderr)
		assert.Contains(t, r.stdout, "built into epp-build")
		assert.NotContains(t, r.stdout+r.stderr, cache, "%v: no path inside the cache", args)
		assert.NotContains(t, r.stdout+r.stderr, "bundled", "%v", args)
	}
}

// commandWords counts the words of args the message names: the command,
// and apply's --regen.
func commandWords(args []string) int {
	if args[0] == "series" || args[0] == "apply" {
		return 2
	}
	return 1
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

// Issue 36: build's report records the recipe set: the built-in one by
// the binary's version and digest (never its cached copy's path), a
// folder as given with the digest of its content.
func TestBuildRecordsTheRecipeSet(t *testing.T) {
	sum, err := bundled.Digest()
	require.NoError(t, err)
	g := &globalFlags{set: &bundled.Set{Kind: bundled.BuiltIn, Dir: "/cache/epp-build/bundled/x/patches", EppBuild: "v1.2.3", Digest: sum}}
	rec, err := g.recipesRecord("")
	require.NoError(t, err)
	assert.Equal(t, &report.Recipes{Kind: "built-in", EppBuild: "v1.2.3", SHA256: sum}, rec)

	repo := filepath.Join("..", "..", "patches")
	g.set = &bundled.Set{Kind: bundled.FromFlag, Dir: repo}
	rec, err = g.recipesRecord("")
	require.NoError(t, err)
	assert.Equal(t, &report.Recipes{Kind: "--patches", Dir: repo, SHA256: sum}, rec, "the repository's patches/ is the embedded series")

	one := filepath.Join(repo, "v0.7.0")
	rec, err = g.recipesRecord(one)
	require.NoError(t, err)
	assert.Equal(t, "--recipe", rec.Kind)
	assert.Equal(t, one, rec.Dir)
	assert.NotEqual(t, sum, rec.SHA256)
}

// Issue 34: apply over local edits, from the built-in recipes, advises a
// folder of the user's, not the cached copy the recipe was read from.
func TestLocalEditsAdviceFromBuiltInRecipesNamesNoCachePath(t *testing.T) {
	cached := "/home/me/.cache/epp-build/bundled/0123/patches/v1.4.2"
	refused := func() error {
		return fmt.Errorf("apply: %w", &guard.LocalChangesError{Dir: "out", RecipeDir: cached, Changes: &guard.LocalChanges{Modified: []string{"a.go"}}})
	}
	g := &globalFlags{set: &bundled.Set{Kind: bundled.BuiltIn, Dir: filepath.Dir(cached)}}
	err := g.adviseOwnFolder(refused())
	assert.NotContains(t, err.Error(), ".cache")
	assert.Contains(t, err.Error(), "--to DIR/v1.4.2")
	var local *guard.LocalChangesError
	assert.ErrorAs(t, err, &local, "still the typed refusal (exit 4)")

	g.set = &bundled.Set{Kind: bundled.FromCheckout, Dir: "patches"}
	assert.Contains(t, g.adviseOwnFolder(refused()).Error(), "--to "+cached, "a folder of the user's is named as it is")
}
