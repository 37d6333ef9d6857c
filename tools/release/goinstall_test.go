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
)

const modulePath = "github.com/epp-build/epp-build"

// testVersion is the version both the go install and the make release
// tests give the tool.
const testVersion = "v0.0.0-test"

// TestGoInstallSaysItsVersion: `go install …/cmd/epp-build@VERSION`
// works from a module proxy that serves this checkout's committed tree,
// and the installed binary names that version, with no advice about
// building it otherwise.
func TestGoInstallSaysItsVersion(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	// The module cache keeps what it extracted for a version for good, so
	// the version names the commit served: another commit is another
	// version, never the cached source of an earlier one.
	head, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	require.NoError(t, err)
	version := testVersion + "." + strings.TrimSpace(string(head))
	proxy := t.TempDir()
	dir := filepath.Join(proxy, modulePath, "@v")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	m := module.Version{Path: modulePath, Version: version}

	// The module zip of HEAD, made as the module proxy makes one from the
	// repository: nested modules (ffi/, plugins/) are left out.
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	require.NoError(t, err)
	require.NoError(t, modzip.CreateFromVCS(zf, m, root, "HEAD", ""))
	require.NoError(t, zf.Close())
	gomod, err := exec.Command("git", "-C", root, "show", "HEAD:go.mod").Output()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, version+".mod"), gomod, 0o644))
	info, err := json.Marshal(map[string]string{"Version": version, "Time": "2025-12-01T00:00:00Z"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, version+".info"), info, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "list"), []byte(version+"\n"), 0o644))

	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	require.NoError(t, err)
	gobin := t.TempDir()
	install := exec.Command("go", "install", modulePath+"/cmd/epp-build@"+version)
	install.Dir = t.TempDir() // outside any module, as a user runs it
	install.Env = append(os.Environ(),
		"GOBIN="+gobin, "GOFLAGS=", "GOWORK=off",
		"GOPROXY=file://"+filepath.ToSlash(proxy)+","+strings.TrimSpace(string(upstream)),
		// The test version is in no checksum database.
		"GONOSUMDB="+modulePath, "GONOSUMCHECK=1", "GOPRIVATE=")
	out, err := install.CombinedOutput()
	require.NoError(t, err, "go install:\n%s", out)

	said, err := exec.Command(filepath.Join(gobin, "epp-build"), "version").Output()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(said), "epp-build "+version+", "), "names its version: %s", said)
	assert.Regexp(t, `^epp-build \S+, go\S+ \S+/\S+\n$`, string(said))
	assert.NotContains(t, string(said), "go install", "no advice to build it the way it was built")
}
