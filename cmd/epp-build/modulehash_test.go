package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// fakeModuleHash is a well-formed h1: hash no tree has.
const fakeModuleHash = "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

// realModuleHash is the h1: hash the go command gives example.com/up@v1.0.0
// made from commit of repoDir (its zip rules over `git archive`).
func realModuleHash(t *testing.T, repoDir, commit string) string {
	return moduleHashOf(t, repoDir, commit, "example.com/up", "v1.0.0")
}

// moduleHashOf is the h1: hash the go command gives mod@version made from
// commit of repoDir.
func moduleHashOf(t *testing.T, repoDir, commit, mod, version string) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, modzip.CreateFromVCS(&buf, module.Version{Path: mod, Version: version}, repoDir, commit, ""))
	zipPath := filepath.Join(t.TempDir(), "m.zip")
	require.NoError(t, os.WriteFile(zipPath, buf.Bytes(), 0o644))
	h, err := dirhash.HashZip(zipPath, dirhash.Hash1)
	require.NoError(t, err)
	return h
}

// pinModule adds upstream.module, moduleVersion and moduleHash to the
// recipe in dir.
func pinModule(t *testing.T, dir, hash string) {
	t.Helper()
	name := filepath.Join(dir, "recipe.yaml")
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	text := strings.Replace(string(data), "\npatches:", "\n  module: example.com/up\n  moduleVersion: v1.0.0\n  moduleHash: "+hash+"\npatches:", 1)
	require.NoError(t, os.WriteFile(name, []byte(text), 0o644))
}

func TestCheckRefusesAMadeUpModuleHashOfAGitTree(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	real := realModuleHash(t, u.repo.Dir, u.commit)
	dir := recipeDir(t, u, "v1.0.0", u.commit, nil)
	pinModule(t, dir, fakeModuleHash)

	for _, cmd := range [][]string{
		{"check", "--recipe", dir, "--source", "git"},
		{"apply", "--recipe", dir, "--source", "git", "--out", filepath.Join(t.TempDir(), "out")},
	} {
		r := run(t, cache, cmd...)
		require.Equal(t, 5, r.code, "%s: %s", cmd[0], r.stderr)
		for _, want := range []string{"recipe v9.9.9", fakeModuleHash, real, u.commit, "set upstream.moduleHash to " + real} {
			assert.Contains(t, r.stderr, want, cmd[0])
		}
	}

	fixed := recipeDir(t, u, "v1.0.0", u.commit, nil)
	pinModule(t, fixed, real)
	r := run(t, cache, "check", "--recipe", fixed, "--source", "git")
	assert.Equal(t, 0, r.code, r.stderr)
}

func TestLintRefusesAModuleHashItsCachedTreeDoesNotHave(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	real := realModuleHash(t, u.repo.Dir, u.commit)
	dir := recipeDir(t, u, "v1.0.0", u.commit, nil)
	pinModule(t, dir, real)
	patches := filepath.Dir(dir)

	// Before any fetch lint has no tree to hash: nothing to say.
	r := run(t, cache, "--patches", patches, "lint")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = run(t, cache, "--patches", patches, "check", "--version", "v9.9.9", "--source", "git")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = run(t, cache, "--patches", patches, "lint")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	text, err := os.ReadFile(filepath.Join(dir, "recipe.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(strings.Replace(string(text), real, fakeModuleHash, 1)), 0o644))
	r = run(t, cache, "--patches", patches, "lint")
	require.Equal(t, 5, r.code, r.stdout+r.stderr)
	for _, want := range []string{"recipe v9.9.9", fakeModuleHash, real, "set upstream.moduleHash to " + real} {
		assert.Contains(t, r.stdout, want)
	}
}
