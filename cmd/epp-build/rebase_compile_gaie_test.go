//go:build integration

package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil"
)

// Issue 38's case: v1.4.2 applies to GAIE v1.5.0 (a release cut from main
// before v1.4.2's pin) but does not compile there. The rebase stops with
// exit 6 naming the file and line instead of writing a series that cannot
// build, and check --compile of the series written with --no-verify fails
// the same way. Cost: the v1.5.0 module zip (10 MiB) from the module proxy,
// the modules its go.mod requires that the module cache lacks, and two
// type-checks of the packages the series changes and their dependents
// (measured on 2 cores: the rebase 32 min with a cold Go build cache on a
// loaded machine, its --continue 4 s warm).
func TestRebaseOntoV150StopsWhereTheTreeDoesNotCompile(t *testing.T) {
	env := proxyGoEnv(t)
	proxy := "https://proxy.golang.org"
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GOPROXY="); ok {
			proxy, _, _ = strings.Cut(strings.Split(v, ",")[0], "|")
		}
	}
	resp, err := http.Get(proxy + "/sigs.k8s.io/gateway-api-inference-extension/@v/v1.5.0.info")
	if err == nil {
		resp.Body.Close()
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Skipf("the module proxy %s does not serve GAIE v1.5.0 here", proxy)
	}
	patches := testutil.CopyRecipeSet(t, filepath.Join("..", ".."))
	cache := os.Getenv("XDG_CACHE_HOME") // share the upstream cache with the other tests of this run
	if cache == "" {
		cache = t.TempDir()
	}

	work := filepath.Join(t.TempDir(), "rebase")
	r := runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v1.4.2", "--onto", "v1.5.0", "--as", "v1.5.0-dyn", "--dir", work, "--source", "goproxy")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `0001-\S+\s+applied`, r.stdout)
	assert.Regexp(t, `the tree does not compile: pkg/epp/\S+\.go:\d+(:\d+)?: undefined: `, r.stderr)
	assert.NoDirExists(t, filepath.Join(patches, "v1.5.0-dyn"), "no series is written that does not compile")
	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--abort", "--dir", work)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)

	r = runEnv(t, cache, env, "--patches", patches, "rebase", "--version", "v1.4.2", "--onto", "v1.5.0", "--as", "v1.5.0-dyn", "--dir", work, "--source", "goproxy", "--no-verify")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "verified: not type-checked (--no-verify)")
	r = runEnv(t, cache, env, "--patches", patches, "check", "--version", "v1.5.0-dyn", "--source", "goproxy", "--compile")
	require.Equal(t, 6, r.code, r.stdout+r.stderr)
	assert.Regexp(t, `the tree does not compile: pkg/epp/\S+\.go:\d+(:\d+)?: undefined: `, r.stderr)
}

// proxyGoEnv lets the commands under test reach the module proxy (the
// tests run them with GOPROXY=off) and share this machine's Go build cache.
func proxyGoEnv(t *testing.T) []string {
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	proxy := os.Getenv("GOPROXY")
	if proxy == "" || proxy == "off" {
		proxy = "https://proxy.golang.org,direct"
	}
	return []string{"GOCACHE=" + strings.TrimSpace(string(gocache)), "GOPROXY=" + proxy,
		"GONOSUMDB=sigs.k8s.io/gateway-api-inference-extension"}
}
