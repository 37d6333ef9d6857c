package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/cheader"
)

// A C binding that does not match the library it links is a failed
// verification, like a moved tag: exit 5, however deep it is wrapped.
func TestPrototypeMismatchIsAFailedVerification(t *testing.T) {
	err := fmt.Errorf("build: capi linux/amd64: %w", &cheader.MismatchError{Problems: []string{"dynamo_router_add_request: parameter 6 is uint64_t, want uint32_t"}})
	assert.Equal(t, 5, exitCode(context.Background(), err))
}

// A library that matches no known variant of a C API axis is an ABI
// mismatch too.
func TestUnknownCAPIVariantIsAFailedVerification(t *testing.T) {
	err := fmt.Errorf("build: %w", &capi.UnknownVariantError{Axis: "routers_result", Platform: "linux/amd64",
		Problems: []string{"9 (variant_routers_result-9.h): struct CRoutingResult: field 4 differs"}})
	assert.Equal(t, 5, exitCode(context.Background(), err))
}
