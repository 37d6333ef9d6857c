package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/cheader"
)

// A C binding that does not match the library it links is a failed
// verification, like a moved tag: exit 5, however deep it is wrapped.
func TestPrototypeMismatchIsAFailedVerification(t *testing.T) {
	err := fmt.Errorf("build: capi linux/amd64: %w", &cheader.MismatchError{Problems: []string{"dynamo_router_add_request: parameter 6 is uint64_t, want uint32_t"}})
	assert.Equal(t, 5, exitCode(context.Background(), err))
}
