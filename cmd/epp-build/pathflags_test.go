package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadPathFlagsAreRefusedBeforeAnyWork runs every command that takes a
// path or source flag with a bad one: each is a usage error (exit 2) whose
// one line on stderr names the flag, and nothing was fetched or written:
// the cache folder and the output folder stay as they were.
func TestBadPathFlagsAreRefusedBeforeAnyWork(t *testing.T) {
	patches := t.TempDir()
	// The pin cannot be fetched (a closed loopback port, a commit no one
	// has): a command that got as far as fetching would fail otherwise.
	require.NoError(t, os.MkdirAll(filepath.Join(patches, "v1"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(patches, "v1", "recipe.yaml"),
		[]byte("upstream:\n  repository: "+deadUpstream+"\n  ref: v1\n  commit: 1111111111111111111111111111111111111111\npatches: []\n"), 0o644))
	before := snapshot(t, patches)
	scratch := t.TempDir()
	missing := filepath.Join(scratch, "missing")
	file := filepath.Join(scratch, "file")
	require.NoError(t, os.WriteFile(file, []byte("not a folder\n"), 0o644))
	notGit := filepath.Join(scratch, "plain-folder")
	require.NoError(t, os.Mkdir(notGit, 0o755))
	tree := filepath.Join(scratch, "tree")
	require.NoError(t, os.MkdirAll(filepath.Join(tree, ".git"), 0o755))

	for _, c := range []struct {
		name string
		env  []string
		args []string // OUT is the output folder, which must not appear
		flag string   // named on the one line of stderr
	}{
		{"apply --capi-src", nil, []string{"apply", "--version", "v1", "--out", "OUT", "--capi-src", missing}, "--capi-src"},
		{"apply --upstream", nil, []string{"apply", "--version", "v1", "--out", "OUT", "--upstream", missing}, "--upstream"},
		{"apply --upstream not a repository", nil, []string{"apply", "--version", "v1", "--out", "OUT", "--upstream", notGit}, "--upstream"},
		{"apply --upstream URL with --source path", nil, []string{"apply", "--version", "v1", "--out", "OUT", "--source", "path", "--upstream", "https://example.com/gaie.git"}, "--upstream"},
		{"apply --out a file", nil, []string{"apply", "--version", "v1", "--out", file}, "--out"},
		{"apply --capi-only --out", nil, []string{"apply", "--version", "v1", "--capi-only", "--capi-src", scratch, "--out", "OUT"}, "--out"},
		{"apply --recipe", nil, []string{"apply", "--recipe", missing, "--out", "OUT"}, "--recipe"},
		{"apply --cache-dir a file", nil, []string{"apply", "--version", "v1", "--out", "OUT", "--cache-dir", file}, "--cache-dir"},
		{"build --capi-src", nil, []string{"build", "--version", "v1", "--push", "--image", "registry.example/epp:1", "--tree", "OUT", "--capi-src", missing}, "--capi-src"},
		{"build --upstream", nil, []string{"build", "--version", "v1", "--push", "--image", "registry.example/epp:1", "--tree", "OUT", "--upstream", missing}, "--upstream"},
		{"build --report a folder", nil, []string{"build", "--version", "v1", "--push", "--image", "registry.example/epp:1", "--tree", "OUT", "--report", scratch}, "--report"},
		{"check --upstream", nil, []string{"check", "--version", "v1", "--upstream", missing}, "--upstream"},
		{"rebase --upstream", nil, []string{"rebase", "--version", "v1", "--onto", "v2", "--dir", "OUT", "--upstream", missing}, "--upstream"},
		{"rebase --capi-src", nil, []string{"rebase", "--version", "v1", "--onto", "v2", "--dir", "OUT", "--exec", "true", "--capi-src", missing}, "--capi-src"},
		{"rebase --dir a file", nil, []string{"rebase", "--version", "v1", "--onto", "v2", "--dir", file}, "--dir"},
		{"rebase --continue --dir", nil, []string{"rebase", "--continue", "--dir", missing}, "--dir"},
		{"pick --from", nil, []string{"pick", "--version", "v1", "--dir", "OUT", "--from", missing, "HEAD"}, "--from"},
		{"pick --from not a repository", nil, []string{"pick", "--version", "v1", "--dir", "OUT", "--from", notGit, "HEAD"}, "--from"},
		{"pick --upstream", nil, []string{"pick", "--version", "v1", "--dir", "OUT", "--upstream", missing, file}, "--upstream"},
		{"pick --abort --dir", nil, []string{"pick", "--abort", "--dir", missing}, "--dir"},
		{"export --dir", nil, []string{"export", "--dir", missing, "--to", "OUT"}, "--dir"},
		{"export --dir not a repository", nil, []string{"export", "--dir", notGit, "--to", "OUT"}, "--dir"},
		{"export --to a file", nil, []string{"export", "--dir", tree, "--to", file}, "--to"},
		{"status --out", nil, []string{"status", "--out", missing}, "--out"},
		{"status --dir", nil, []string{"status", "--dir", missing}, "--dir"},
		{"log --upstream", nil, []string{"log", "--version", "v1", "--since", "v1", "--upstream", missing}, "--upstream"},
		{"log EPP_BUILD_UPSTREAM", []string{upstreamEnv + "=" + missing}, []string{"log", "--version", "v1", "--since", "v1"}, upstreamEnv + " (--upstream)"},
		{"diff-series --upstream", nil, []string{"diff-series", "v1", "v1", "--upstream", missing}, "--upstream"},
		{"diff-series --upstream not a URL", nil, []string{"diff-series", "v1", "v1", "--upstream", "ftp://example.com/gaie.git"}, "--upstream"},
		{"diff-series EPP_BUILD_UPSTREAM", []string{upstreamEnv + "=" + file}, []string{"diff-series", "v1", "v1"}, upstreamEnv + " (--upstream)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cache := t.TempDir()
			out := filepath.Join(t.TempDir(), "out")
			args := []string{"--patches", patches}
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "OUT", out))
			}
			r := runEnv(t, cache, c.env, args...)
			assert.Equal(t, 2, r.code, r.stdout+r.stderr)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			assert.Len(t, lines, 1, r.stderr)
			assert.True(t, strings.HasPrefix(r.stderr, "epp-build: "+c.flag+" "), "the line names the flag first: %q", r.stderr)
			assert.Contains(t, r.stderr, ": give ", "the line says what to give instead")
			left, err := os.ReadDir(cache)
			require.NoError(t, err)
			assert.Empty(t, left, "nothing is written into the cache")
			assert.NoDirExists(t, out)
			assert.Equal(t, before, snapshot(t, patches), "the recipes are untouched")
		})
	}
}
