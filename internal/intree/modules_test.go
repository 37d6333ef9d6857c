//go:build e2e

package intree

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const gaieModule = "sigs.k8s.io/gateway-api-inference-extension"

// A plugin module's vet and tests compile the same dependency packages as
// the patched GAIE tree it is copied into (same flags, same versions), so
// a fresh machine compiles each Kubernetes package once. One module
// selected above GAIE's own requirement breaks that for every package
// that imports it: testify v1.12.1 pulling go.yaml.in/yaml/v3 v3.0.5 where
// GAIE has v3.0.4 made 257 of the 867 packages under pkg/epp/server
// compile twice. The patches change no go.mod, so GAIE's go.mod is the
// tree's.
func TestPluginModulesSelectTheirTreesVersions(t *testing.T) {
	mods, err := filepath.Glob(filepath.Join("..", "..", "plugins", "*", "go.mod"))
	require.NoError(t, err)
	require.NotEmpty(t, mods)
	for _, mod := range mods {
		dir := filepath.Dir(mod)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			gaie := strings.TrimSpace(goOutput(t, dir, "list", "-m", "-f", "{{.Version}}", gaieModule))
			selected := map[string]string{}
			for _, line := range strings.Split(goOutput(t, dir, "list", "-m", "-f", "{{.Path}} {{.Version}}", "all"), "\n") {
				if path, version, ok := strings.Cut(line, " "); ok {
					selected[path] = version
				}
			}
			from := gaieModule + "@" + gaie
			var wrong []string
			for _, line := range strings.Split(goOutput(t, dir, "mod", "graph"), "\n") {
				parent, child, ok := strings.Cut(line, " ")
				if !ok || parent != from {
					continue
				}
				path, want, _ := strings.Cut(child, "@")
				if path == "go" || path == "toolchain" {
					continue // the language version, not a module
				}
				if got := selected[path]; got != want {
					wrong = append(wrong, path+" "+got+" (GAIE requires "+want+")")
				}
			}
			require.Empty(t, wrong, "%s selects other versions than GAIE %s requires, so its packages compile apart from the tree's: "+
				"require GAIE's version in %s (or in ffi/go.mod, which it replaces in)", dir, gaie, mod)
		})
	}
}

// goOutput is the output of a read-only go command in dir (goCmd runs one
// that may write, with -mod=mod).
func goOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GOWORK=off", "GOFLAGS=") // read-only: go.sum is complete
	out, err := cmd.Output()
	require.NoError(t, err, "go %s in %s: %s", strings.Join(args, " "), dir, stderrOf(err))
	return string(out)
}
