package cheader

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routersBinding is the 9-field result layout the routers binding
// declares (its default variant).
const routersBinding = "../../ffi/routers/variant_routers_result-9.h"

func problems(t *testing.T, err error) []string {
	t.Helper()
	var mismatch *MismatchError
	require.ErrorAs(t, err, &mismatch)
	return mismatch.Problems
}

func TestCheckComparesParameterTypes(t *testing.T) {
	library := headerOf(t, "#include <stdint.h>\nuint32_t f(const char *name, uint32_t block_size);")

	// A wider integer is passed in a different way: refused.
	err := Check(headerOf(t, "uint32_t f(const char *ns, uint64_t block_size);"), library)
	assert.Equal(t, []string{`f: parameter 2 (block_size) is uint64_t in the binding, uint32_t in the library header ` +
		`("uint64_t block_size" vs "uint32_t block_size")`}, problems(t, err))

	// Pointer depth and signedness are the ABI too.
	err = Check(headerOf(t, "uint32_t f(const char **ns, int32_t block_size);"), library)
	assert.Len(t, problems(t, err), 2)

	// Names and qualifiers are not: same registers, same representation.
	require.NoError(t, Check(headerOf(t, "uint32_t f(char *namespace_, const uint32_t n);"), library))
}

func TestCheckComparesReturnTypes(t *testing.T) {
	library := headerOf(t, "typedef uint32_t QueryRouterResult;\nQueryRouterResult free_request(void *h, const char *id);")
	err := Check(headerOf(t, "void free_request(void *h, const char *id);"), library)
	assert.Equal(t, []string{`free_request: returns void in the binding, uint32_t in the library header ("void" vs "QueryRouterResult")`},
		problems(t, err))
	// An enum with a fixed underlying type is that type.
	require.NoError(t, Check(headerOf(t, "enum R : uint32_t { Ok = 0 };\nR free_request(void *h, const char *id);"), library))
	err = Check(headerOf(t, "int64_t free_request(void *h, const char *id);"), library)
	assert.Len(t, problems(t, err), 1)
}

// Dynamo v1.0.0's CRoutingResult had no cache namespace; a binding that
// reads one from that library reads past the end of the struct.
func TestCheckComparesStructLayouts(t *testing.T) {
	binding := parseHeader(t, routersBinding)
	older := headerOf(t, `
struct CRoutingResult { bool is_disaggregated; uint64_t prefill_worker_id; uint64_t decode_worker_id;
  uint32_t prefill_dp_rank; uint32_t decode_dp_rank; uint32_t *token_ids; uintptr_t token_count; };`)
	got := problems(t, Check(&Header{Structs: binding.Structs}, older))
	assert.Equal(t, []string{
		"struct CRoutingResult: field 8 cache_namespace is in the binding but not in the library header",
		"struct CRoutingResult: field 9 cache_namespace_len is in the binding but not in the library header",
	}, got)

	// An extra field in the library moves nothing the binding reads, but the
	// struct is bigger than the binding allocates for an out parameter.
	extra := headerOf(t, `typedef struct S { int32_t a; int64_t b; int64_t c; } S;`)
	got = problems(t, Check(headerOf(t, `typedef struct S { int32_t a; int64_t b; } S;`), extra))
	assert.Equal(t, []string{"struct S: field 3 c is in the library header but not in the binding"}, got)

	// Order and types matter; a missing struct too.
	got = problems(t, Check(headerOf(t, `struct S { int64_t b; int32_t a; int64_t c; }; struct T { int a; };`), extra))
	assert.Equal(t, []string{
		"struct S: field 1 is int64_t b in the binding, int32_t a in the library header",
		"struct S: field 2 is int32_t a in the binding, int64_t b in the library header",
		"struct T: defined by the binding but not by the library header",
	}, got)
}

func TestCheckAcceptsCbindgenCAndCppStyles(t *testing.T) {
	c := parseHeader(t, "testdata/cbindgen_c.h")
	cpp := parseHeader(t, "testdata/cbindgen_cpp.h")
	// Plain C declarations of the same ABI as each style writes it.
	require.NoError(t, Check(headerOf(t, `
typedef uint32_t sample_result_t;
typedef struct Handle Handle;
typedef struct Result { bool ok; uint32_t *items; uintptr_t count; } Result;
sample_result_t sample_open(const char *name, uint32_t block_size, Handle **out);
void sample_free(Result *result);`), c))
	require.NoError(t, Check(headerOf(t, `
typedef uint32_t Code;
typedef struct Pipeline Pipeline;
struct Pair { int64_t left; int64_t right; };
Code sample_init(const char *ns, const char *component, uint32_t kv_block_size);
Code sample_query(Pipeline *p, const char *request_json, int64_t *worker_out, uint32_t **tokens_out, size_t *count_out);`), cpp))
}
