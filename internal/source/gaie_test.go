//go:build integration

package source

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/testenv"
	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// gaieV051 is the real upstream pin of Dynamo's v0.7.0 line.
var gaieV051 = recipe.Upstream{
	Repository:    "https://github.com/kubernetes-sigs/gateway-api-inference-extension.git",
	Ref:           "v0.5.1",
	Commit:        "978c23bb96cce25f11cea2421523cb479026e2e9",
	Module:        "sigs.k8s.io/gateway-api-inference-extension",
	ModuleVersion: "v0.5.1",
	ModuleHash:    "h1:OMpt4gKlPWkD+h5kHcZZVh4926kix2DSBPI7X5ntuCA=",
}

// TestRealGAIEThroughGoProxy fetches GAIE v0.5.1 through the real GOPROXY
// and checks the hash, the origin commit and the resulting work tree.
func TestRealGAIEThroughGoProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads GAIE v0.5.1 from the Go module proxy")
	}
	requireProxyReachable(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tree, err := Fetch(ctx, Request{Pin: gaieV051, Kind: GoProxy, CacheDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, GoProxy, tree.Via)
	assert.Equal(t, gaieV051.Commit, tree.Commit)
	assert.Equal(t, "2025-07-23T18:06:51Z", tree.Time.UTC().Format(time.RFC3339))

	dst := filepath.Join(t.TempDir(), "gaie")
	require.NoError(t, tree.Materialize(ctx, dst))
	requireWorkTree(t, dst, tree.BaseCommit, nil, "")
	gomod, err := os.ReadFile(filepath.Join(dst, "go.mod"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(gomod), "module sigs.k8s.io/gateway-api-inference-extension\n"))
	assert.FileExists(t, filepath.Join(dst, "cmd", "epp", "main.go"))
	assert.FileExists(t, filepath.Join(dst, "pkg", "epp", "plugins", "plugins.go"))
	assert.Contains(t, gitfixture.Git(t, dst, "show", "-s", "--format=%B", "HEAD"), gaieV051.Commit)

	// The git tree at v0.5.1 has nine executable files (git ls-tree:
	// eight under hack/, one under tools/). The module zip has no modes;
	// the #! rule restores eight of them. It cannot see the other two
	// differences: hack/release-quickstart.sh is 100755 without a #! line,
	// and hack/kube-env.sh starts with #! but is 100644 (it is sourced).
	gitExec := []string{
		"hack/boilerplate/boilerplate.py",
		"hack/mkdocs/image/entrypoint.sh",
		"hack/push-chart.sh",
		"hack/release-quickstart.sh",
		"hack/test-e2e.sh",
		"hack/update-codegen.sh",
		"hack/verify-all.sh",
		"hack/verify-boilerplate.sh",
		"tools/benchmark/download-benchmark-results.bash",
	}
	var exec []string
	for _, line := range strings.Split(gitfixture.Git(t, dst, "ls-files", "-s"), "\n") {
		if mode, rest, _ := strings.Cut(line, " "); mode == "100755" {
			exec = append(exec, rest[strings.IndexByte(rest, '\t')+1:])
		}
	}
	want := append([]string{"hack/kube-env.sh"}, gitExec...)
	want = slices.DeleteFunc(want, func(p string) bool { return p == "hack/release-quickstart.sh" })
	slices.Sort(want)
	assert.Equal(t, want, exec)
}

// requireProxyReachable skips (or fails in CI) when the first GOPROXY
// entry cannot be reached.
func requireProxyReachable(t *testing.T) {
	t.Helper()
	entries, err := parseGOPROXY(goproxySetting())
	if err != nil || !strings.HasPrefix(entries[0].url, "http") {
		testenv.Require(t, "an HTTP module proxy in GOPROXY", "the test downloads a real module")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, entries[0].url+"/"+gaieV051.Module+"/@v/"+gaieV051.ModuleVersion+".info", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		testenv.Require(t, "network access to "+entries[0].url, "the test downloads GAIE v0.5.1: "+err.Error())
	}
	resp.Body.Close()
}
