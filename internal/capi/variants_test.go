package capi

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/cheader"
)

// routersVariantDir copies the routers binding's headers (the main one and
// every variant fragment) as a patched tree holds them.
func routersVariantDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "pkg", "routers")
	src := filepath.Join("..", "..", "ffi", "routers")
	headers, err := filepath.Glob(filepath.Join(src, "*.h"))
	require.NoError(t, err)
	for _, h := range headers {
		data, err := os.ReadFile(h)
		require.NoError(t, err)
		write(t, filepath.Join(dir, filepath.Base(h)), string(data))
	}
	return dir
}

// doubleVariants are the builds of the C API test double, one per shape of
// Dynamo's routers library (testdata/capi-double/README.md), with the
// variant of each axis the build must choose for it.
var doubleVariants = []struct {
	name     string
	features []string
	want     map[string]string // axis -> variant
}{
	{"dynamo-v1.0", []string{"dynamo-v1.0"}, map[string]string{"routers_result": "5", "routers_add": "6", "routers_reservation": "none"}},
	{"dynamo-v1.1", []string{"dynamo-v1.1"}, map[string]string{"routers_result": "7", "routers_add": "6", "routers_reservation": "none"}},
	{"dynamo-v1.4", []string{"dynamo-v1.4"}, map[string]string{"routers_result": "9", "routers_add": "8", "routers_reservation": "none"}},
	{"result7-reservation2", []string{"routers-result7", "routers-add6", "reservation-2"},
		map[string]string{"routers_result": "7", "routers_add": "6", "routers_reservation": "2"}},
	{"reservation-timeout", []string{"reservation-timeout"}, map[string]string{"routers_result": "9", "routers_add": "8", "routers_reservation": "timeout"}},
	{"default", nil, map[string]string{"routers_result": "9", "routers_add": "8", "routers_reservation": "4"}},
}

// firstDifference is the first difference the prototype check reports
// between a variant fragment (axis, value) and a library that has another
// variant of that axis; "" where the library declares the fragment too
// and the build prefers the library's own variant (it declares more).
var firstDifference = map[[3]string]string{
	// axis, fragment, library's variant
	{"routers_result", "5", "7"}: "struct CRoutingResult: field 4 is uint32_t* token_ids in the binding, uint32_t prefill_dp_rank in the library header",
	{"routers_result", "5", "9"}: "struct CRoutingResult: field 4 is uint32_t* token_ids in the binding, uint32_t prefill_dp_rank in the library header",
	{"routers_result", "7", "5"}: "struct CRoutingResult: field 4 is uint32_t prefill_dp_rank in the binding, uint32_t* token_ids in the library header",
	{"routers_result", "7", "9"}: "struct CRoutingResult: field 8 cache_namespace is in the library header but not in the binding",
	{"routers_result", "9", "5"}: "struct CRoutingResult: field 4 is uint32_t prefill_dp_rank in the binding, uint32_t* token_ids in the library header",
	{"routers_result", "9", "7"}: "struct CRoutingResult: field 8 cache_namespace is in the binding but not in the library header",

	{"routers_add", "6", "8"}: "", // Dynamo's 1.4 library keeps add_request beside its successor
	{"routers_add", "8", "6"}: "add_request_with_cache_namespace: declared by the binding but missing from the library header",

	{"routers_reservation", "none", "4"}:       "",
	{"routers_reservation", "none", "2"}:       "",
	{"routers_reservation", "none", "timeout"}: "",
	{"routers_reservation", "4", "none"}:       "begin_prefill_reservation: declared by the binding but missing from the library header",
	{"routers_reservation", "4", "2"}:          "begin_prefill_reservation: declared by the binding but missing from the library header",
	{"routers_reservation", "4", "timeout"}:    "begin_prefill_reservation: declared by the binding but missing from the library header",
	{"routers_reservation", "2", "none"}:       "cancel_prefill_reservation: declared by the binding but missing from the library header",
	{"routers_reservation", "2", "4"}:          "", // the four-call library has both calls of the two-call form
	{"routers_reservation", "2", "timeout"}:    "route_prefill_request_with_reservation: binding declares 5 parameters, library header has 6",
	{"routers_reservation", "timeout", "none"}: "cancel_prefill_reservation: declared by the binding but missing from the library header",
	{"routers_reservation", "timeout", "4"}:    "route_prefill_request_with_reservation: binding declares 6 parameters, library header has 5",
	{"routers_reservation", "timeout", "2"}:    "route_prefill_request_with_reservation: binding declares 6 parameters, library header has 5",
}

// readDoubleHeader reads a checked-in header of the double.
func readDoubleHeader(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "capi-double", "include", name))
	require.NoError(t, err)
	return data
}

// A library whose result layout is none of the known ones is refused as
// an ABI mismatch, naming the axis and the first difference from each
// known variant.
func TestUnknownResultLayoutIsRefused(t *testing.T) {
	hdr := readDoubleHeader(t, "dynamo_llm_capi.h")
	// A layout no Dynamo had: the ranks after the tokens.
	old := []byte("  uint32_t prefill_dp_rank;\n  uint32_t decode_dp_rank;\n  uint32_t *token_ids;\n  size_t token_count;\n")
	require.Equal(t, 1, bytes.Count(hdr, old))
	hdr = bytes.Replace(hdr, old, []byte("  uint32_t *token_ids;\n  size_t token_count;\n  uint32_t prefill_dp_rank;\n  uint32_t decode_dp_rank;\n"), 1)

	_, err := CheckLibraries(routersVariantDir(t), "dynamo_llm_routers.h",
		[]Library{{Platform: "linux/amd64", HeaderName: "llm_engine.h", Header: hdr}})
	var unknown *UnknownVariantError
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, "routers_result", unknown.Axis)
	var mismatch *cheader.MismatchError
	require.ErrorAs(t, err, &mismatch, "an unknown variant is an ABI mismatch (exit 5)")
	assert.Contains(t, err.Error(), "matches no known variant of routers_result")
	assert.Contains(t, err.Error(), "struct CRoutingResult: the library declares it as no known variant does")
	assert.Contains(t, err.Error(), "variant 5 has struct CRoutingResult: field 6 prefill_dp_rank is in the library header but not in the binding")
	assert.Contains(t, err.Error(), "variant 9 has struct CRoutingResult: field 4 is uint32_t prefill_dp_rank in the binding, uint32_t* token_ids in the library header")
}

// A reservation call with a prototype no variant knows is refused, not
// silently taken as "no reservations".
func TestUnknownReservationFormIsRefused(t *testing.T) {
	hdr := readDoubleHeader(t, "dynamo_llm_capi_reservation-timeout.h")
	old := []byte("uint64_t timeout_ms);")
	require.Equal(t, 1, bytes.Count(hdr, old))
	hdr = bytes.Replace(hdr, old, []byte("uint32_t timeout_ms);"), 1)

	_, err := CheckLibraries(routersVariantDir(t), "dynamo_llm_routers.h",
		[]Library{{Platform: "linux/amd64", HeaderName: "llm_engine.h", Header: hdr}})
	var unknown *UnknownVariantError
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, "routers_reservation", unknown.Axis)
	require.Len(t, unknown.Problems, 1)
	assert.Contains(t, unknown.Problems[0], "route_prefill_request_with_reservation: the library declares it as no known variant does")
	assert.Contains(t, unknown.Problems[0], "variant timeout has route_prefill_request_with_reservation: parameter 6 (timeout_ms) is uint64_t in the binding, uint32_t in the library header")
	assert.True(t, errors.As(err, new(*cheader.MismatchError)))
}
