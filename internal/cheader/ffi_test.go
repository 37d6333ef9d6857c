package cheader

// Cross-checks between the cgo bindings in ffi/ (a nested module, which
// cannot import this package) and the C API test double's header: every
// prototype a binding compiles against must exist in the library with the
// same number of parameters, and the library must really export it.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testenv"
)

const (
	doubleCrate  = "../../testdata/capi-double"
	doubleHeader = doubleCrate + "/include/dynamo_llm_capi.h"
)

// bindingHeaders are the headers the ffi packages include in their cgo
// preambles, each with its package folder.
func bindingHeaders(t *testing.T) map[string]string {
	t.Helper()
	var paths []string
	for _, pattern := range []string{"../../ffi/*/*.h", "../../ffi/internal/*/*.h"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		paths = append(paths, m...)
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		// Dynamo v0.8.0's pipeline arities live in a second double archive
		// (feature pipeline08); TestPipeline08BindingDeclaresV080Arity
		// checks that binding.
		if strings.HasSuffix(filepath.Dir(p), "08") {
			continue
		}
		out[p] = filepath.Dir(p)
	}
	require.Contains(t, out, filepath.Clean("../../ffi/pipeline/dynamo_llm_pipeline.h"), "the pipeline binding header is missing")
	return out
}

// parseBinding parses a binding header; an optional feature's header
// (feature_<tag>.h) uses the types of its package's main header, which
// is read first.
func parseBinding(t *testing.T, path string) *Header {
	t.Helper()
	if !strings.HasPrefix(filepath.Base(path), "feature_") {
		return parseHeader(t, path)
	}
	mains, err := filepath.Glob(filepath.Join(filepath.Dir(path), "dynamo_llm_*.h"))
	require.NoError(t, err)
	require.Len(t, mains, 1, "the package of %s has one main header", path)
	var src []byte
	for _, p := range []string{mains[0], path} {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		src = append(append(src, data...), '\n')
	}
	h, err := ParseHeader(src)
	require.NoError(t, err, path)
	return h
}

func TestBindingHeadersMatchTheDoubleHeader(t *testing.T) {
	library := parseHeader(t, doubleHeader)
	for header := range bindingHeaders(t) {
		binding := parseBinding(t, header)
		require.NotEmpty(t, binding.Functions, header)
		assert.NoError(t, Check(binding, library), header)
	}
}

func TestPipelineBindingDeclaresV070Arity(t *testing.T) {
	binding := parseFile(t, "../../ffi/pipeline/dynamo_llm_pipeline.h")
	// Dynamo v0.7.0's lib.rs: init lost worker_id and takes 3 parameters.
	require.Contains(t, binding, "dynamo_llm_init")
	assert.Len(t, binding["dynamo_llm_init"].Params, 3)
	assert.Len(t, binding["dynamo_create_worker_selection_pipeline"].Params, 10)
	assert.Len(t, binding["dynamo_query_worker_selection_and_annotate"].Params, 6)
	assert.Len(t, binding["dynamo_free_worker_selection_result"].Params, 3)
}

func TestPipeline08BindingDeclaresV080Arity(t *testing.T) {
	binding := parseFile(t, "../../ffi/pipeline08/dynamo_llm_pipeline.h")
	// Dynamo v0.8.0's lib.rs (115531a0c0bf58ff12df7ef7e69082d50fd4d707).
	for name, params := range map[string]int{
		"dynamo_llm_init": 3, "dynamo_llm_shutdown": 0, "dynamo_create_worker_selection_pipeline": 11,
		"dynamo_query_worker_selection_and_annotate": 7, "dynamo_free_worker_selection_result": 3,
		"dynamo_destroy_worker_selection_pipeline": 1, "dynamo_router_add_request": 6,
		"dynamo_router_mark_prefill_complete": 2, "dynamo_router_free_request": 2,
	} {
		require.Contains(t, binding, name)
		assert.Len(t, binding[name].Params, params, name)
	}
}

// The checked-in header must be what cbindgen writes from the crate today,
// and the bindings must match that fresh header too.
func TestDoubleHeaderIsUpToDate(t *testing.T) {
	cbindgen := testenv.Tool(t, "cbindgen", "regenerating the C API double's header")
	testenv.Tool(t, "cargo", "cbindgen reads the crate through cargo metadata")
	out := filepath.Join(t.TempDir(), "fresh.h")
	cmd := exec.Command(cbindgen, "--config", "cbindgen.toml", "--crate", "libdynamo_llm", "--output", out, "--quiet")
	cmd.Dir = doubleCrate
	cmd.Env = append(os.Environ(), "CARGO_NET_OFFLINE=true")
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "cbindgen: %s", msg)

	fresh, err := os.ReadFile(out)
	require.NoError(t, err)
	checkedIn, err := os.ReadFile(doubleHeader)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(fresh, checkedIn),
		"testdata/capi-double/include/dynamo_llm_capi.h is stale; regenerate it (see the crate's README.md)")

	library, err := ParseHeader(fresh)
	require.NoError(t, err)
	for header := range bindingHeaders(t) {
		assert.NoError(t, Check(parseBinding(t, header), library), header)
	}
}

// Each function a binding declares must be a defined, global text symbol of
// the static library the binding links, when that library has been built.
func TestDoubleArchiveExportsEveryBindingSymbol(t *testing.T) {
	nm := testenv.Tool(t, "nm", "listing the symbols of the C API double's archive")
	for header, dir := range bindingHeaders(t) {
		archive := filepath.Join(dir, "lib", runtime.GOARCH, "libdynamo_llm_capi.a")
		if _, err := os.Stat(archive); err != nil {
			testenv.Require(t, archive, "build it with ffi/build-double.sh")
		}
		out, err := exec.Command(nm, "-g", "--defined-only", archive).Output()
		require.NoError(t, err, "nm %s", archive)
		exported := make(map[string]bool)
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 3 && f[1] == "T" {
				exported[f[2]] = true
			}
		}
		for name := range parseFile(t, header) {
			assert.True(t, exported[name], "%s: declared in %s but not exported by %s", name, header, archive)
		}
	}
}
