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
