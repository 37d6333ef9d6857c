//go:build integration

package pipeline

import (
	"context"
	"debug/buildinfo"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/testutil"
)

// containerModeBuildsWithTheRecipeToolchain rebuilds what a container-mode
// test just built, now for a recipe naming another Go: the C API comes
// from BuildKit's cache, only the EPP compiles again, and each platform's
// binary says in its build info that the recipe's Go built it. The go
// command on this machine fetches the toolchain, so it is put back on
// PATH (path) for this run.
func containerModeBuildsWithTheRecipeToolchain(t *testing.T, opt Options, path string) {
	t.Setenv("PATH", path)
	toolchain := testutil.OtherGoRelease(t)
	in := testInput(t)
	in.Recipe = &recipe.Recipe{Version: "v0.0.0-toolchain", Toolchain: toolchain}
	var errOut syncBuffer
	opt.Stderr, opt.Report = &errOut, t.TempDir()+"/report.json"

	rep, err := runOpts(context.Background(), in, opt)
	require.NoError(t, err, errOut.String())
	assert.Contains(t, errOut.String(), "go mod download golang.org/toolchain@v0.0.1-"+toolchain+".linux-")
	built := entrypointGoVersions(t, opt.Image)
	for _, p := range bothPlatforms {
		assert.Equal(t, toolchain, built[p], "%s: the recipe's Go built the binary", p)
	}
	onDisk, err := report.Read(opt.Report)
	require.NoError(t, err)
	assert.Equal(t, toolchain, onDisk.Inputs.Toolchains.Go)
	assert.Equal(t, rep.Outputs.IndexDigest, onDisk.Outputs.IndexDigest)
}

// entrypointGoVersions reads, for each platform image of ref, the Go
// version in the build info of its /epp.
func entrypointGoVersions(t *testing.T, ref string) map[string]string {
	t.Helper()
	files, err := image.PullFile(context.Background(), ref, "/"+binaryName, t.TempDir(), image.RegistryOptions{Insecure: true})
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		info, err := buildinfo.ReadFile(f.Path)
		require.NoError(t, err, f.Platform)
		out[f.Platform] = info.GoVersion
	}
	return out
}

// hostModeBuildsWithTheRecipeToolchain rebuilds what the host-mode test
// just built, now for a recipe naming another Go, under another image
// name (the test goes on to read its own): the C API comes from the
// cache, the EPP is compiled by the recipe's Go, and the image's binaries
// and the report say so.
func hostModeBuildsWithTheRecipeToolchain(t *testing.T, opt Options) {
	toolchain := testutil.OtherGoRelease(t)
	in := testInput(t)
	in.Recipe = &recipe.Recipe{Version: "v0.0.0-toolchain", Toolchain: toolchain}
	var errOut syncBuffer
	opt.Image = reg.Host + "/dynamo/epp-toolchain:v0.7.0"
	opt.Stdout, opt.Stderr, opt.Report = io.Discard, &errOut, t.TempDir()+"/report.json"

	_, err := runOpts(context.Background(), in, opt)
	require.NoError(t, err, errOut.String())
	built := entrypointGoVersions(t, opt.Image)
	for _, p := range bothPlatforms {
		assert.Equal(t, toolchain, built[p], "%s: the recipe's Go built the binary", p)
	}
	onDisk, err := report.Read(opt.Report)
	require.NoError(t, err)
	assert.Equal(t, toolchain, onDisk.Inputs.Toolchains.Go)
	assert.Equal(t, CompileHost, onDisk.Inputs.Toolchains.CompileMode)
}
