package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// depModule is the dependency double testdata/moduledouble holds.
const depModule = "example.com/dep"

// fileModuleProxy serves every version folder of testdata/moduledouble as
// depModule through a file:// GOPROXY, the go command's own layout.
func fileModuleProxy(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	at := filepath.Join(root, depModule, "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	versions, err := os.ReadDir(filepath.Join("testdata", "moduledouble"))
	require.NoError(t, err)
	var list []string
	for _, d := range versions {
		if !d.IsDir() {
			continue
		}
		v, src := d.Name(), filepath.Join("testdata", "moduledouble", d.Name())
		zf, err := os.Create(filepath.Join(at, v+".zip"))
		require.NoError(t, err)
		require.NoError(t, modzip.CreateFromDir(zf, module.Version{Path: depModule, Version: v}, src))
		require.NoError(t, zf.Close())
		mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(at, v+".mod"), mod, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(at, v+".info"), []byte(`{"Version":"`+v+`","Time":"2026-01-01T00:00:00Z"}`), 0o644))
		list = append(list, v)
	}
	require.NoError(t, os.WriteFile(filepath.Join(at, "list"), []byte(strings.Join(list, "\n")+"\n"), 0o644))
	return "file://" + filepath.ToSlash(root)
}

// bumpEnv is the environment of the bump tests: the file proxy, no
// checksum database for the double, a module cache of the test's own,
// the local Go only, and a known author.
func bumpEnv(t *testing.T) []string {
	return []string{
		"GOPROXY=" + fileModuleProxy(t), "GOSUMDB=off", "GOFLAGS=-modcacherw", "GOMODCACHE=" + t.TempDir(),
		"GOTOOLCHAIN=local", "GOWORK=off",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ada Maintainer", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_AUTHOR_DATE=2026-03-04T05:06:07+00:00",
	}
}

// goUpstream is an upstream Go module whose cmd/epp calls dep.Hello of
// example.com/dep v1.0.0, tagged v1 (and v1.0.0, its module version).
func goUpstream(t *testing.T, env []string) upstream {
	t.Helper()
	root := t.TempDir()
	repo := gitfixture.NewAt(t, filepath.Join(root, "gaie"))
	files := map[string]string{
		"go.mod":          "module example.com/gaie\n\ngo 1.21\n\nrequire " + depModule + " v1.0.0\n",
		"cmd/epp/main.go": "package main\n\nimport \"example.com/dep\"\n\nfunc main() {\n\tprintln(dep.Hello())\n}\n",
	}
	gitfixture.WriteFiles(t, repo.Dir, files)
	// go.sum as go mod tidy writes it, from the double.
	runGo(t, repo.Dir, env, "mod", "tidy")
	sum, err := os.ReadFile(filepath.Join(repo.Dir, "go.sum"))
	require.NoError(t, err)
	files["go.sum"] = string(sum)
	commit := repo.Commit(t, "v1", files)
	repo.Tag(t, "v1", commit, true)
	repo.Tag(t, "v1.0.0", commit, false)
	return upstream{repo: repo, url: repo.HTTPURL(gitfixture.ServeHTTP(t, root)), commit: commit}
}

// bumpLine makes a recipe set whose v9 line is goUpstream with one patch
// of its own, and returns the set and the upstream.
func bumpLine(t *testing.T, env []string) (patches string, u upstream) {
	t.Helper()
	u = goUpstream(t, env)
	patches = t.TempDir()
	seriesOn(t, u.url, u.commit, patches, t.TempDir(), "v9", []edit{
		{"cmd/epp/main.go", "println(dep.Hello())", "println(dep.Hello(), \"via Dynamo\")", "Route through Dynamo"},
	})
	return patches, u
}

func runGo(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}

// TestBumpAppendsOnePatchThatCheckAndLintAccept raises the double in a
// line: one patch, named and authored as the tool promises, with the
// Fixes: trailer; check and lint pass after it.
func TestBumpAppendsOnePatchThatCheckAndLintAccept(t *testing.T) {
	env := bumpEnv(t)
	patches, _ := bumpLine(t, env)
	cache, dir := t.TempDir(), filepath.Join(patches, "v9")
	checked := func(what string) {
		t.Helper()
		for _, c := range []string{"check", "lint"} {
			r := runEnv(t, cache, env, "--patches", patches, c, "--version", "v9")
			require.Equal(t, 0, r.code, what+": "+c+": "+r.stdout+r.stderr)
		}
	}

	r := runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", depModule+"@v1.1.0", "--fixes", "GO-2026-0001")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	const name = "0002-deps-bump-example.com-dep-to-v1.1.0.patch"
	assert.Contains(t, r.stdout, "example.com/dep  v1.0.0  v1.1.0")
	assert.Contains(t, r.stdout, "v9: wrote "+name+" (deps: bump example.com/dep to v1.1.0)")
	assert.Contains(t, r.stdout, "type-checked")
	names, text := seriesFiles(t, dir)
	assert.Equal(t, []string{"0001-Route-through-Dynamo.patch", name}, names)
	assert.Contains(t, text, "  - "+name+"\n")
	patch, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	for _, want := range []string{
		"From: Ada Maintainer <ada@example.com>\n",
		"Date: Wed, 4 Mar 2026 05:06:07 +0000\n",
		"Subject: deps: bump example.com/dep to v1.1.0\n",
		"Raise example.com/dep from v1.0.0 to v1.1.0.\n",
		"Reason: the new versions fix known vulnerabilities (Fixes: below)\nFixes: GO-2026-0001\n",
		"-require example.com/dep v1.0.0\n+require example.com/dep v1.1.0\n",
		"+example.com/dep v1.1.0 h1:",
	} {
		assert.Contains(t, string(patch), want)
	}
	checked("after a bump")

	// Refusals write nothing.
	before := snapshot(t, patches)
	r = runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", depModule+"@v1.0.0")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "the line has example.com/dep v1.1.0, a later version; bump never lowers a module")
	r = runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", "example.com/other@v1.0.0")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "the line does not require example.com/other")
	r = runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", depModule+"@v1.2.0")
	assert.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "the tree does not compile: cmd/epp/main.go:6:")
	assert.Contains(t, r.stderr, "--no-verify")
	r = runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", depModule+"@v1.2.0", "--dry-run")
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "v9: dry run, nothing written")
	assert.Equal(t, before, snapshot(t, patches), "a refused bump or a dry run wrote into the recipe set")

	// --no-verify writes what does not compile; the series is still
	// what apply and export make.
	r = runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", depModule+"@v1.2.0", "--no-verify", "-o", "json")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	var res struct {
		Patch     string
		Written   bool
		TypeCheck any `json:"typecheck"`
		Plan      struct {
			Bumps []struct{ Module, From, To string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.Equal(t, "0003-deps-bump-example.com-dep-to-v1.2.0.patch", res.Patch)
	assert.True(t, res.Written)
	assert.Nil(t, res.TypeCheck, "--no-verify type-checks nothing")
	assert.Equal(t, []struct{ Module, From, To string }{{depModule, "v1.1.0", "v1.2.0"}}, res.Plan.Bumps)
	checked("after a bump with --no-verify")
}

// TestBumpToolchainChangesOnlyTheRecipe records a toolchain: no patch,
// the recipe's toolchain set, check and lint content.
func TestBumpToolchainChangesOnlyTheRecipe(t *testing.T) {
	env := bumpEnv(t)
	patches, _ := bumpLine(t, env)
	cache, dir := t.TempDir(), filepath.Join(patches, "v9")
	namesBefore, _ := seriesFiles(t, dir)
	r := runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", "--toolchain", "go1.27.3")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "v9: the recipe's toolchain is now go1.27.3")
	names, text := seriesFiles(t, dir)
	assert.Equal(t, namesBefore, names)
	assert.Contains(t, text, "toolchain: go1.27.3\n")
	for _, c := range []string{"check", "lint"} {
		r := runEnv(t, cache, env, "--patches", patches, c, "--version", "v9")
		require.Equal(t, 0, r.code, c+": "+r.stdout+r.stderr)
	}
	// Lowering it, or naming the same release, is refused.
	r = runEnv(t, cache, env, "--patches", patches, "bump", "--version", "v9", "--toolchain", "go1.26.10")
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "bump never lowers")
}

func TestBumpRefusesBadArgumentsBeforeAnyWork(t *testing.T) {
	cache := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bump", "--version", "v1.4.2"}, "nothing to bump"},
		{[]string{"bump", "--version", "v1.4.2", "golang.org/x/net"}, "give MODULE@VERSION"},
		{[]string{"bump", "--version", "v1.4.2", "golang.org/x/net@latest"}, "must be a release"},
		{[]string{"bump", "--version", "v1.4.2", "golang.org/x/net@v0.45.0", "--fixes", "CVE-2025-22870"}, "GO-YYYY-NNNN"},
		{[]string{"bump", "--version", "v1.4.2", "--toolchain", "go1.27"}, "goX.Y.Z"},
		{[]string{"bump", "--version", "v1.4.2", "golang.org/x/net@v0.45.0", "--db", "file:///srv/vulndb"}, "add --fix-called"},
		{[]string{"bump", "golang.org/x/net@v0.45.0"}, "--version or --recipe is required"},
		{[]string{"bump", "--version", "v1.4.2", "go@v1.27.3"}, "--toolchain"},
	} {
		// GOPROXY=off and no network: a refusal that reached the fetch
		// would say so instead.
		r := run(t, cache, append([]string{"--patches", filepath.Join("..", "..", "patches")}, c.args...)...)
		assert.Equal(t, 2, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
		assert.Empty(t, r.stdout, "%v", c.args)
	}
	// The recipes built into the binary are no folder to write a bump to.
	r := run(t, cache, "bump", "--version", "v1.4.2", "golang.org/x/net@v0.45.0")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "bump works on a recipes folder of your own")
}
