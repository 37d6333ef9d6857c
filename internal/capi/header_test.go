package capi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/platform"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestFindHeaderPrefersBuildOutput(t *testing.T) {
	crate, target := t.TempDir(), t.TempDir()
	inc := filepath.Join(crate, "include", "api.h")
	write(t, inc, "int a(void);")
	h, err := findHeader(context.Background(), env(os.Environ()), nil, "", crate, "mycrate", nil, nil, "", t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, inc, h, "include/ is used when the build wrote no header")

	build := filepath.Join(target, "x86_64-unknown-linux-gnu", "release", "build")
	out := filepath.Join(build, "mycrate-0123abcd", "out")
	write(t, filepath.Join(out, "nested", "api.h"), "int a(void);")
	// The same crate built from another checkout into the shared target
	// dir, and another crate's output: neither is this build's.
	write(t, filepath.Join(build, "mycrate-99887766", "out", "api.h"), "int old(void);")
	write(t, filepath.Join(build, "othercrate-99", "out", "x.h"), "")
	h, err = findHeader(context.Background(), env(os.Environ()), nil, "", crate, "mycrate", nil, []string{out}, "", t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(out, "nested", "api.h"), h)
}

// cargo's messages name the output folder of the package that built the
// static library, also when the build script was fresh.
func TestLibraryOutDirsFollowsCargoMessages(t *testing.T) {
	messages := `{"reason":"build-script-executed","package_id":"path+file:///a/dep#dep@0.1.0","out_dir":"/t/build/dep-1/out"}
{"reason":"compiler-artifact","package_id":"path+file:///a/dep#dep@0.1.0","target":{"kind":["lib"]}}
{"reason":"build-script-executed","package_id":"path+file:///a/capi#libdynamo_llm@0.1.0","out_dir":"/t/build/libdynamo_llm-2/out"}
{"reason":"compiler-artifact","package_id":"path+file:///a/capi#libdynamo_llm@0.1.0","target":{"kind":["staticlib","cdylib"]}}
not json
{"reason":"build-finished","success":true}
`
	dirs, err := libraryOutDirs(strings.NewReader(messages))
	require.NoError(t, err)
	assert.Equal(t, []string{"/t/build/libdynamo_llm-2/out"}, dirs)
}

func TestFindHeaderAsksWhichWhenAmbiguous(t *testing.T) {
	crate := t.TempDir()
	write(t, filepath.Join(crate, "include", "a.h"), "")
	write(t, filepath.Join(crate, "include", "b.h"), "")
	_, err := findHeader(context.Background(), env(os.Environ()), nil, "", crate, "c", nil, nil, "", t.TempDir())
	require.ErrorContains(t, err, "several C headers")
	h, err := findHeader(context.Background(), env(os.Environ()), nil, "", crate, "c", nil, nil, "b.h", t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, "b.h", filepath.Base(h))
}

func TestStageChecksPrototypesAndPlacesLibraries(t *testing.T) {
	tree := t.TempDir()
	binding := filepath.Join(tree, "pkg", "dyn")
	write(t, filepath.Join(binding, "dynamo_llm_pipeline.h"), "#include <stdint.h>\nuint32_t dynamo_llm_init(const char *a, int64_t b);\n")
	dir, err := FindBindingDir(tree, "dynamo_llm_pipeline.h")
	require.NoError(t, err)
	assert.Equal(t, binding, dir)

	cache := t.TempDir()
	lib := filepath.Join(cache, "libx.a")
	write(t, lib, "!<arch>\n")
	good := filepath.Join(cache, "good", "capi.h")
	write(t, good, "uint32_t dynamo_llm_init(const char *ns, int64_t id);\n")
	res := &Result{Artifacts: []Artifact{
		{Platform: platform.Platform{GOOS: "linux", GOARCH: "amd64"}, Library: lib, Header: good},
		{Platform: platform.Platform{GOOS: "linux", GOARCH: "arm64"}, Library: lib, Header: good},
	}}
	_, err = Stage(res, dir, "dynamo_llm_pipeline.h", "dynamo_llm_capi")
	require.NoError(t, err)
	for _, arch := range []string{"amd64", "arm64"} {
		assert.FileExists(t, filepath.Join(binding, "lib", arch, "libdynamo_llm_capi.a"))
	}
	assert.FileExists(t, filepath.Join(binding, "include", "capi.h"))

	// One parameter fewer in the library than in the binding: refused.
	bad := filepath.Join(cache, "bad", "capi.h")
	write(t, bad, "uint32_t dynamo_llm_init(const char *ns);\n")
	res.Artifacts[1].Header = bad
	_, err = Stage(res, dir, "dynamo_llm_pipeline.h", "dynamo_llm_capi")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dynamo_llm_init")
	assert.Contains(t, err.Error(), "linux/arm64")
}

func TestFindBindingDirErrors(t *testing.T) {
	tree := t.TempDir()
	_, err := FindBindingDir(tree, "dynamo_llm_pipeline.h")
	require.ErrorContains(t, err, "no dynamo_llm_pipeline.h")
	write(t, filepath.Join(tree, "a", "dynamo_llm_pipeline.h"), "")
	write(t, filepath.Join(tree, "b", "dynamo_llm_pipeline.h"), "")
	_, err = FindBindingDir(tree, "dynamo_llm_pipeline.h")
	require.ErrorContains(t, err, "several folders")
}

func TestTreeHashIgnoresTargetAndGit(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "src", "lib.rs"), "fn a() {}")
	h1, err := TreeHash(dir)
	require.NoError(t, err)
	write(t, filepath.Join(dir, "target", "junk"), "x")
	write(t, filepath.Join(dir, ".git", "HEAD"), "x")
	h2, err := TreeHash(dir)
	require.NoError(t, err)
	assert.Equal(t, h1, h2)
	write(t, filepath.Join(dir, "src", "lib.rs"), "fn b() {}")
	h3, err := TreeHash(dir)
	require.NoError(t, err)
	assert.NotEqual(t, h1, h3)
}
