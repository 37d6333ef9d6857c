package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goModulePins is a Go module upstream with tags v1 and v2. Between them
// lib.Old became lib.New; plug/plug.go, which the series edits to call
// lib.Old, is the same in both: the series applies cleanly to v2 and does
// not compile there.
func goModulePins(t *testing.T) twoPins {
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "gaie"))
	plug := "package plug\n\nimport \"example.com/up/lib\"\n\n// X is what the series routes by.\nvar X = 0\n\nvar _ = lib.Version\n"
	v1 := repo.Commit(t, "v1", map[string]string{
		"go.mod":       "module example.com/up\n\ngo 1.21\n",
		"lib/lib.go":   "package lib\n\nconst Version = 1\n\nfunc Old() int { return 1 }\n",
		"plug/plug.go": plug,
		"README.md":    "upstream\n",
	})
	repo.Tag(t, "v1", v1, true)
	v2 := repo.Commit(t, "v2", map[string]string{
		"lib/lib.go": "package lib\n\nconst Version = 2\n\nfunc New() int { return 2 }\n",
	})
	repo.Tag(t, "v2", v2, true)
	return twoPins{upstream: upstream{repo: repo, url: repo.HTTPURL(gitfixture.ServeHTTP(t, root)), commit: v1}, v1: v1, v2: v2}
}

// goBuildCache is this machine's Go build cache, shared with the commands
// under test (their XDG_CACHE_HOME is a fresh folder, which would make
// the go command compile from nothing).
func goBuildCache(t *testing.T) []string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	return []string{"GOCACHE=" + strings.TrimSpace(string(out))}
}

// A series that applies to the new pin but does not compile there: the
// rebase stops (exit 6) naming the file and line, resumable; fixed,
// --continue type-checks again and finishes. --no-verify finishes and says
// it did not check, and check --compile then fails as the rebase did.
func TestRebaseStopsWhereTheRebasedTreeDoesNotCompile(t *testing.T) {
	testenv.Tool(t, "go", "the type-check runs the go command")
	u := goModulePins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	env := goBuildCache(t)
	seriesOn(t, u.url, u.v1, patches, cache, "v9", []edit{
		{"plug/plug.go", "var X = 0\n", "var X = lib.Old()\n", "Route by lib"},
		{"README.md", "upstream\n", "upstream, routed\n", "Say so"},
	})
	before := snapshot(t, patches)

	work := filepath.Join(t.TempDir(), "rebase")
	r := runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v10", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "0001-Route-by-lib.patch  applied")
	assert.Regexp(t, `plug/plug\.go:6(:\d+)?: undefined: lib\.Old`, r.stderr)
	assert.Contains(t, r.stderr, "epp-build rebase --continue")
	assert.Equal(t, before, snapshot(t, patches), "nothing is written while the tree does not compile")

	// --skip has no patch to drop; --continue without a fix stops again.
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--skip", "--dir", work)
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--continue", "--dir", work)
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `plug/plug\.go:6(:\d+)?: undefined: lib\.Old`, r.stderr)

	plug := filepath.Join(work, "plug", "plug.go")
	data, err := os.ReadFile(plug)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(plug, []byte(strings.Replace(string(data), "lib.Old()", "lib.New()", 1)), 0o644))
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--continue", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "verified: type-checked 1 Go package(s)")
	series, err := os.ReadFile(filepath.Join(patches, "v10", "0002-Say-so.patch"))
	require.NoError(t, err)
	assert.Contains(t, string(series), "lib.New()", "the fix is folded into the last patch")

	// --no-verify: finished, said unchecked; check --compile catches it.
	work2 := filepath.Join(t.TempDir(), "rebase")
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v9", "--onto", "v2", "--as", "v11", "--dir", work2, "--no-verify")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "verified: not type-checked (--no-verify)")
	r = runEnv(t, cache, env, "--patches", patches, "check", "--version", "v11")
	require.Equal(t, 0, r.code, "check without --compile does not compile: %s", r.stdout+r.stderr)
	r = runEnv(t, cache, env, "--patches", patches, "check", "--version", "v11", "--compile")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `plug/plug\.go:6(:\d+)?: undefined: lib\.Old`, r.stderr)
	r = runEnv(t, cache, env, "--patches", patches, "check", "--version", "v10", "--compile")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "type-checked 1 Go package(s)")

	// Back onto v1: the rebase says the line loses v2's commit (and v1
	// has no lib.New).
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v10", "--onto", "v1", "--as", "v12", "--dir", filepath.Join(t.TempDir(), "rebase"))
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "notice: v1 moves the line back 1 commit: the old pin v2 has 1 upstream commit it lacks")
	assert.Regexp(t, `plug/plug\.go:6(:\d+)?: undefined: lib\.New`, r.stderr)
}

// lint --each-patch names a patch that imports a package only a later
// patch of the series adds, with the file and line of the import; the
// tree at the end is fine, so only a patch-by-patch check sees it.
func TestLintEachPatchNamesAPatchImportingALaterOne(t *testing.T) {
	u := goModulePins(t)
	cache := t.TempDir()
	patches := t.TempDir()
	dir := filepath.Join(patches, "v9")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte("upstream:\n  repository: "+u.url+"\n  ref: v1\n  commit: "+u.v1+"\npatches: []\n"), 0o644))
	work := filepath.Join(t.TempDir(), "work")
	r := run(t, cache, "apply", "--recipe", dir, "--out", work)
	require.Equal(t, 0, r.code, r.stderr)
	for _, c := range []struct{ file, text, subject string }{
		{"router/router_test.go", "package router_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/up/booking\"\n)\n\nfunc TestB(t *testing.T) { _ = booking.X }\n", "Add the router"},
		{"booking/booking.go", "package booking\n\nconst X = 1\n", "Add booking"},
	} {
		p := filepath.Join(work, filepath.FromSlash(c.file))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(c.text), 0o644))
		gitfixture.Git(t, work, "add", ".")
		gitfixture.Git(t, work, "commit", "-q", "-m", c.subject+"\n\nWhy: the test series.\n\nReason: test")
	}
	r = run(t, cache, "export", "--dir", work, "--to", dir)
	require.Equal(t, 0, r.code, r.stderr)

	r = run(t, cache, "--patches", patches, "lint", "--version", "v9")
	assert.NotContains(t, r.stdout, "does not compile on its own", "plain lint applies nothing")
	r = run(t, cache, "--patches", patches, "lint", "--version", "v9", "--each-patch")
	assert.Equal(t, 7, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "0001-Add-the-router.patch: router/router_test.go:6 imports example.com/up/booking, which the tree does not have after this patch")
	assert.NotContains(t, r.stdout, "0002-Add-booking.patch:")
}
