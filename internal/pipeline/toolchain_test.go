//go:build integration

package pipeline

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"io"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	for _, p := range bothPlatforms {
		assert.Equal(t, toolchain, entrypointGoVersion(t, opt.Image, p), "%s: the recipe's Go built the binary", p)
	}
	onDisk, err := report.Read(opt.Report)
	require.NoError(t, err)
	assert.Equal(t, toolchain, onDisk.Inputs.Toolchains.Go)
	assert.Equal(t, rep.Outputs.IndexDigest, onDisk.Outputs.IndexDigest)
}

// entrypointGoVersion reads the Go version from the build info of the
// image's /epp for platform p.
func entrypointGoVersion(t *testing.T, ref, p string) string {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	plat, err := v1.ParsePlatform(p)
	require.NoError(t, err)
	img, err := remote.Image(r, remote.WithPlatform(*plat))
	require.NoError(t, err)
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatalf("%s: no %s in the image", p, binaryName)
		}
		require.NoError(t, err)
		if h.Name != binaryName && h.Name != "/"+binaryName {
			continue
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		info, err := buildinfo.Read(bytes.NewReader(data))
		require.NoError(t, err)
		return info.GoVersion
	}
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
	for _, p := range bothPlatforms {
		assert.Equal(t, toolchain, entrypointGoVersion(t, opt.Image, p), "%s: the recipe's Go built the binary", p)
	}
	onDisk, err := report.Read(opt.Report)
	require.NoError(t, err)
	assert.Equal(t, toolchain, onDisk.Inputs.Toolchains.Go)
	assert.Equal(t, CompileHost, onDisk.Inputs.Toolchains.CompileMode)
}
