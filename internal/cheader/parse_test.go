package cheader

import (
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parseFile(t *testing.T, path string) map[string]Prototype {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	protos, err := Parse(src)
	require.NoError(t, err, path)
	return protos
}

func parseHeader(t *testing.T, path string) *Header {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	h, err := ParseHeader(src)
	require.NoError(t, err, path)
	return h
}

func headerOf(t *testing.T, src string) *Header {
	t.Helper()
	h, err := ParseHeader([]byte(src))
	require.NoError(t, err, src)
	return h
}

func names(protos map[string]Prototype) []string {
	out := make([]string, 0, len(protos))
	for n := range protos {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func TestParseCbindgenCStyle(t *testing.T) {
	protos := parseFile(t, "testdata/cbindgen_c.h")

	// Commented-out and #define text is not a declaration.
	assert.Equal(t, []string{"sample_close", "sample_count", "sample_free", "sample_open"}, names(protos))
	assert.Equal(t, Prototype{
		Name:   "sample_open",
		Return: "sample_result_t",
		Params: []string{"const char *name", "uint32_t block_size", "Handle **out"},
	}, protos["sample_open"])
	assert.Empty(t, protos["sample_close"].Params, "(void) is no parameter")
	assert.Empty(t, protos["sample_count"].Params, "() is no parameter")
	assert.Equal(t, []string{"struct Result *result"}, protos["sample_free"].Params)
	assert.Equal(t, "void", protos["sample_free"].Return)
}

func TestParseCbindgenCppStyle(t *testing.T) {
	protos := parseFile(t, "testdata/cbindgen_cpp.h")

	// The inline helper has a body: a definition, not a prototype.
	assert.Equal(t, []string{"sample_destroy", "sample_init", "sample_query"}, names(protos))
	assert.Len(t, protos["sample_query"].Params, 5)
	assert.Equal(t, "uintptr_t *count_out", protos["sample_query"].Params[4])
	assert.Equal(t, "Code", protos["sample_init"].Return)
}

func TestParseRejectsWhatItCannotRead(t *testing.T) {
	for name, src := range map[string]string{
		"function pointer":      "void (*callback)(int);",
		"fn pointer parameter":  "void register_cb(void (*cb)(int), int x);",
		"unterminated":          "int f(int x)",
		"unbalanced brace":      "extern \"C\" { int f(void);",
		"conflicting redeclare": "int f(int a); int f(int a, int b);",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(src))
			require.Error(t, err)
		})
	}
}

func TestParseSkipsTypesAndVariables(t *testing.T) {
	protos, err := Parse([]byte(`
typedef int (*handler_t)(void *ctx);
extern const int limit;
struct s { int a; };
typedef struct { int (*fn)(int); } table_t;
int ok_fn(int a, handler_t h);
`))
	require.NoError(t, err)
	assert.Equal(t, []string{"ok_fn"}, names(protos))
	assert.Equal(t, []string{"int a", "handler_t h"}, protos["ok_fn"].Params)
}
