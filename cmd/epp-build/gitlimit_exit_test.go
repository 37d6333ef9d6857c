package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/source"
)

// A git server refused for going over a limit of the receiver is a failed
// command (exit 1), not a mistake in how it was called (2, the code the Go
// runtime's out-of-memory crash used to exit with).
func TestGitLimitRefusalExitsOne(t *testing.T) {
	err := fmt.Errorf("apply: upstream: %w", &source.LimitError{Limit: "an object's size", Value: 3 << 30, Max: 256 << 20, Unit: "bytes",
		Server: "https://example.com/gaie.git", Setting: source.MaxObjectEnv})
	assert.Equal(t, 1, exitCode(context.Background(), err))
	assert.Contains(t, err.Error(), "https://example.com/gaie.git")
	assert.Contains(t, err.Error(), source.MaxObjectEnv)
}
