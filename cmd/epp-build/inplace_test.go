package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApplyRegenPicksUpAPluginEdit: after editing plugin source, one
// `apply --regen` rewrites the generated patch and updates the tree in
// place; check then agrees.
func TestApplyRegenPicksUpAPluginEdit(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	root := t.TempDir()
	plugin := filepath.Join(root, "plugins", "hello")
	require.NoError(t, os.MkdirAll(plugin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "plugins", "go.mod"), []byte("module example.com/plugins\n\ngo 1.22\n"), 0o644))
	write := func(src string) {
		require.NoError(t, os.WriteFile(filepath.Join(plugin, "hello.go"), []byte(src), 0o644))
	}
	write("package hello\n\n// Hello greets.\nfunc Hello() string { return \"hello\" }\n")

	dir := filepath.Join(root, "patches", "v9.9.9")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	placeholder := strings.ReplaceAll(string(addFilePatch("pkg/hello/hello.go")), "+added", "+package hello")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0001-add-hello.patch"), []byte(placeholder), 0o644))
	recipe := "upstream:\n  repository: " + u.url + "\n  ref: v1.0.0\n  commit: " + u.commit +
		"\n  module: example.com/up\n  moduleVersion: v1.0.0\n  moduleHash: " + realModuleHash(t, u.repo.Dir, u.commit) +
		"\ngenerated:\n  - patch: 0001-add-hello.patch\n    from: ../../plugins/hello\n    to: pkg/hello\npatches:\n  - 0001-add-hello.patch\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(recipe), 0o644))
	out := filepath.Join(t.TempDir(), "out")

	r := run(t, cache, "apply", "--recipe", dir, "--out", out, "--regen")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "v9.9.9: 1 patches, 1 rewritten")
	got, err := os.ReadFile(filepath.Join(out, "pkg/hello/hello.go"))
	require.NoError(t, err)
	assert.Contains(t, string(got), `return "hello"`)

	write("package hello\n\n// Hello greets.\nfunc Hello() string { return \"hello, edited\" }\n")
	r = run(t, cache, "apply", "--recipe", dir, "--out", out, "--regen")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "re-applying: patch 0001-add-hello.patch changed")
	assert.Contains(t, r.stderr, "rewrote 1 file(s) in place")
	got, err = os.ReadFile(filepath.Join(out, "pkg/hello/hello.go"))
	require.NoError(t, err)
	assert.Contains(t, string(got), `return "hello, edited"`)
	assert.Empty(t, gitfixture.Git(t, out, "status", "--porcelain", "--untracked-files=all"))

	r = run(t, cache, "check", "--recipe", dir)
	assert.Equal(t, 0, r.code, r.stderr)
}
