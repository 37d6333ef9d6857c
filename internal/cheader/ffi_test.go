package cheader

// Cross-checks between the cgo bindings in ffi/ (a nested module, which
// cannot import this package) and the C API test double's header: every
// prototype a binding compiles against must exist in the library with the
// same return and parameter types, and the library must really export it.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	doubleCrate = "../../testdata/capi-double"
	// doubleHeader declares what the default double archive exports.
	doubleHeader = doubleCrate + "/include/dynamo_llm_capi.h"
	// doubleHeader08 declares what the archive built with the cargo
	// feature pipeline08 exports: Dynamo v0.8.0's pipeline signatures
	// under v0.7.0's symbol names.
	doubleHeader08 = doubleCrate + "/include/dynamo_llm_capi_pipeline08.h"
)

// doubleHeaders are the double's checked-in headers with the cbindgen
// config each is generated from: the default build, pipeline08, and the
// builds as other variants of the routers generation.
var doubleHeaders = []struct{ header, config string }{
	{doubleHeader, "cbindgen.toml"},
	{doubleHeader08, "cbindgen-pipeline08.toml"},
	{variantDoubleHeader("dynamo-v1.0"), "cbindgen-dynamo-v1.0.toml"},
	{variantDoubleHeader("dynamo-v1.1"), "cbindgen-dynamo-v1.1.toml"},
	{variantDoubleHeader("dynamo-v1.4"), "cbindgen-dynamo-v1.4.toml"},
	{variantDoubleHeader("result7-reservation2"), "cbindgen-result7-reservation2.toml"},
	{variantDoubleHeader("reservation-timeout"), "cbindgen-reservation-timeout.toml"},
}

func variantDoubleHeader(build string) string {
	return doubleCrate + "/include/dynamo_llm_capi_" + build + ".h"
}

// variantDouble names the double header of a build that has each routers
// variant fragment's shape (the default build has the rest).
var variantDouble = map[string]string{
	"variant_routers_result-5.h":            variantDoubleHeader("dynamo-v1.0"),
	"variant_routers_result-7.h":            variantDoubleHeader("dynamo-v1.1"),
	"variant_routers_add-6.h":               variantDoubleHeader("dynamo-v1.0"),
	"variant_routers_reservation-2.h":       variantDoubleHeader("result7-reservation2"),
	"variant_routers_reservation-timeout.h": variantDoubleHeader("reservation-timeout"),
}

// bindingLibrary is a binding's package folder and the double header
// describing the archive that package links.
type bindingLibrary struct {
	dir, header string
}

// bindingHeaders are the headers the ffi packages include in their cgo
// preambles. Packages named *08 link the pipeline08 archive (see
// ffi/build-double.sh), the others the default one.
func bindingHeaders(t *testing.T) map[string]bindingLibrary {
	t.Helper()
	var paths []string
	for _, pattern := range []string{"../../ffi/*/*.h", "../../ffi/internal/*/*.h"} {
		m, err := filepath.Glob(pattern)
		require.NoError(t, err)
		paths = append(paths, m...)
	}
	out := make(map[string]bindingLibrary, len(paths))
	for _, p := range paths {
		lib := bindingLibrary{dir: filepath.Dir(p), header: doubleHeader}
		if strings.HasSuffix(lib.dir, "08") {
			lib.header = doubleHeader08
		}
		if h, ok := variantDouble[filepath.Base(p)]; ok {
			lib.header = h
		}
		out[p] = lib
	}
	require.Contains(t, out, filepath.Clean("../../ffi/pipeline/dynamo_llm_pipeline.h"), "the pipeline binding header is missing")
	require.Contains(t, out, filepath.Clean("../../ffi/pipeline08/dynamo_llm_pipeline.h"), "the pipeline08 binding header is missing")
	return out
}

// parseBinding parses a binding header; an optional feature's header
// (feature_<tag>.h) or a variant fragment (variant_<axis>-<value>.h) uses
// the types of its package's main header, which is read first.
func parseBinding(t *testing.T, path string) *Header {
	t.Helper()
	base := filepath.Base(path)
	if !strings.HasPrefix(base, "feature_") && !strings.HasPrefix(base, "variant_") {
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
	for header, lib := range bindingHeaders(t) {
		binding := parseBinding(t, header)
		require.NotEmpty(t, binding.Functions, header)
		if strings.HasPrefix(filepath.Base(header), "variant_") {
			// Only the fragment's own declarations are its variant's.
			own := parseHeader(t, header)
			binding = binding.Only(filterFunctions(binding.Functions, own.Functions), filterStructs(binding.Structs, own.Structs))
		}
		assert.NoError(t, Check(binding, parseHeader(t, lib.header)), "%s against %s", header, lib.header)
	}
}

// The pipeline08 binding is checked type by type like the others: a
// parameter whose type changes is caught, not only a changed count.
func TestPipeline08CheckFailsOnAChangedParameterType(t *testing.T) {
	src, err := os.ReadFile("../../ffi/pipeline08/dynamo_llm_pipeline.h")
	require.NoError(t, err)
	const dpRank = "uint32_t dp_rank"
	require.Equal(t, 1, bytes.Count(src, []byte(dpRank)), "the binding declares dynamo_router_add_request's dp_rank once")
	changed, err := ParseHeader(bytes.Replace(src, []byte(dpRank), []byte("uint64_t dp_rank"), 1))
	require.NoError(t, err)

	for _, library := range []string{doubleHeader08, "testdata/v080_library.h"} {
		err = Check(changed, parseHeader(t, library))
		var mismatch *MismatchError
		require.ErrorAs(t, err, &mismatch, library)
		require.Len(t, mismatch.Problems, 1, library)
		assert.Contains(t, mismatch.Problems[0], "dynamo_router_add_request", library)
		assert.Contains(t, mismatch.Problems[0], "uint64_t", library)
	}
}

// The pipeline08 binding against every function Dynamo v0.8.0 exports,
// written from its lib.rs: the double cannot drift from the real library
// without one of the two checks failing.
func TestPipeline08BindingMatchesDynamoV080(t *testing.T) {
	binding := parseHeader(t, "../../ffi/pipeline08/dynamo_llm_pipeline.h")
	assert.NoError(t, Check(binding, parseHeader(t, "testdata/v080_library.h")))
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

func filterFunctions(all, keep map[string]Prototype) map[string]Prototype {
	out := map[string]Prototype{}
	for k := range keep {
		out[k] = all[k]
	}
	return out
}

func filterStructs(all, keep map[string]Struct) map[string]Struct {
	out := map[string]Struct{}
	for k := range keep {
		out[k] = all[k]
	}
	return out
}
