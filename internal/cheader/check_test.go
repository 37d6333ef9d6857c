package cheader

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Go/Rust disagreement Dynamo shipped: Go declared dynamo_llm_init with
// 4 parameters while Rust took 3 from v0.7.0 on.
func TestCheckCatchesTheV070ArityBugAndMissingFunctions(t *testing.T) {
	binding := parseHeader(t, "testdata/v070_go_binding.h")
	library := parseHeader(t, "testdata/v070_library.h")

	err := Check(binding, library)
	var mismatch *MismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, []string{
		"dynamo_llm_init: binding declares 4 parameters, library header has 3",
		"dynamo_one_shot_select_and_annotate: declared by the binding but missing from the library header",
	}, mismatch.Problems)
	assert.Contains(t, err.Error(), "dynamo_llm_init: binding declares 4 parameters, library header has 3")
}

func TestCheckAcceptsASubsetWithTheSameArity(t *testing.T) {
	library := parseHeader(t, "testdata/v070_library.h")
	binding := headerOf(t, "typedef uint32_t dynamo_llm_result_t;\ndynamo_llm_result_t dynamo_llm_shutdown(void);")
	require.NoError(t, Check(binding, library))
	require.NoError(t, Check(library, library))
}

func TestCheckSaysParameterInSingular(t *testing.T) {
	err := Check(headerOf(t, "int f(int a);"), headerOf(t, "int f(void);"))
	require.EqualError(t, err, "C binding does not match the library header (1 problem(s)); fix the binding's header "+
		"or regenerate the library header:\n  f: binding declares 1 parameter, library header has 0")
}
