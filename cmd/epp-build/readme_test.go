//go:build integration

package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEBackportingRunsAsWritten runs every command of the
// backporting walkthrough (docs/backporting.md, linked from the README),
// in order, in a copy of the repository's patches/ and docs/ (the module
// proxy serves the upstream pins).
func TestREADMEBackportingRunsAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches two GAIE versions from the module proxy")
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "backporting.md"))
	require.NoError(t, err)
	commands := walkthrough(t, string(doc))
	require.GreaterOrEqual(t, len(commands), 6)

	requireProxyAnswers(t, commands)

	root := t.TempDir()
	for _, dir := range []string{"patches", "docs", "plugins", "ffi", filepath.Join("testdata", "capi-double")} {
		require.NoError(t, os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join("..", "..", dir))))
	}
	// The walkthrough's rebase --exec builds ./cmd/epp against the double.
	testenv.Tool(t, "cargo", "the walkthrough's rebase --exec stages the C API test double, built with cargo")
	require.NoError(t, os.RemoveAll(filepath.Join(root, "testdata", "capi-double", "target")))
	cache := os.Getenv("XDG_CACHE_HOME") // share the upstream cache with the other tests of this run
	if cache == "" {
		cache = t.TempDir()
	}
	outputs := map[string]string{}
	for _, c := range commands {
		require.True(t, strings.HasPrefix(c, "go run ./cmd/epp-build "), "walkthrough step %q", c)
		sub := strings.Fields(c)[3]
		// The shell parses the step as a reader's shell would (quotes).
		cmd := exec.Command("bash", "-c", binary+strings.TrimPrefix(c, "go run ./cmd/epp-build"))
		cmd.Dir = root
		cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cache, "GONOSUMDB=sigs.k8s.io/gateway-api-inference-extension"), goEnv(t)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "walkthrough step `%s`:\n%s", c, out)
		outputs[sub] += string(out)
	}
	assert.Regexp(t, `picked \d{4}-Dockerfile-build-the-EPP-for-the-target-platform-not\.patch into v1\.4\.3`, outputs["pick"])
	assert.Regexp(t, regexp.MustCompile(`\d{4}-bbr\.Dockerfile\S+\s+applied`), outputs["rebase"])
	assert.Contains(t, outputs["rebase"], "exec after 0001")
	assert.Contains(t, outputs["log"], "reason:   multi-arch images held amd64 binaries")
	assert.Regexp(t, "\\| (same|moved \\([-+0-9, ]+\\)) \\| Dockerfile: build the EPP", outputs["diff-series"])
	assert.Contains(t, outputs["lint"], "no problems")
	assert.FileExists(t, filepath.Join(root, "patches", "v1.2.9", "recipe.yaml"))
}

// requireProxyAnswers checks that the module proxy answers the
// walkthrough's `rebase --onto REF` (a pseudo-version, which every proxy
// answers; a commit, which some networks' proxies refuse).
func requireProxyAnswers(t *testing.T, commands []string) {
	var onto string
	for _, c := range commands {
		f := strings.Fields(c)
		for i := range f[:len(f)-1] {
			if f[i] == "--onto" {
				onto = f[i+1]
			}
		}
	}
	require.NotEmpty(t, onto, "the walkthrough rebases --onto a ref")
	proxy := "https://proxy.golang.org"
	if v := os.Getenv("GOPROXY"); v != "" {
		proxy, _, _ = strings.Cut(strings.Split(v, ",")[0], "|")
	}
	url := proxy + "/sigs.k8s.io/gateway-api-inference-extension/@v/" + onto + ".info"
	resp, err := http.Get(url)
	if err == nil {
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		status := fmt.Sprint(err)
		if err == nil {
			status = resp.Status
		}
		testenv.Require(t, "a module proxy that answers "+onto+" ("+url+": "+status+")", "the walkthrough's rebase --onto "+onto+" asks it")
	}
}

// walkthrough returns the commands of the code block of
// docs/backporting.md's Walkthrough section, continuation lines joined and
// comments dropped.
func walkthrough(t *testing.T, doc string) []string {
	_, after, ok := strings.Cut(doc, "\n## Walkthrough\n")
	require.True(t, ok, "docs/backporting.md has a Walkthrough section")
	_, block, ok := strings.Cut(after, "```sh\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	var commands []string
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
		if !strings.HasSuffix(line, "\\") {
			commands = append(commands, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	return commands
}
