package llmresult

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckNamesTheCallAndTheCode(t *testing.T) {
	assert.NoError(t, Check("dynamo_llm_init", 0))
	err := Check("dynamo_router_free_request", 1)
	var call *CallError
	assert.True(t, errors.As(err, &call))
	assert.Equal(t, "dynamo_router_free_request: code 1 (error; the library logs the cause)", err.Error())
	assert.Contains(t, Check("x", 42).Error(), "unknown result code")
}

// The library can be initialised once per process: a second call would
// abort it, so the first outcome, failure included, is the answer for good.
func TestInitOnceCallsTheLibraryOnce(t *testing.T) {
	var ok InitOnce
	calls := 0
	for range 3 {
		assert.NoError(t, ok.Do(func() uint32 { calls++; return 0 }))
	}
	assert.Equal(t, 1, calls)

	var failed InitOnce
	assert.Error(t, failed.Do(func() uint32 { return 1 }))
	err := failed.Do(func() uint32 { t.Fatal("dynamo_llm_init called again"); return 0 })
	assert.ErrorContains(t, err, "failed to initialise earlier")
}
