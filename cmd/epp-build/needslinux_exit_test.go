package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/compile"
)

// A flag this system cannot honour (the C API staged off Linux) is a usage
// mistake, exit 2, however it is wrapped.
func TestNeedsLinuxIsExit2(t *testing.T) {
	err := fmt.Errorf("apply: %w", &compile.SystemError{Feature: "--capi", OS: "darwin", Arch: "arm64"})
	assert.Equal(t, 2, exitCode(context.Background(), err))
}
