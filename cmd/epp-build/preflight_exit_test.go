package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/pipeline"
)

// Something the build needs that is missing outside this machine is exit
// 8, however it is wrapped (several versions prefix theirs).
func TestPreflightIsExit8(t *testing.T) {
	err := fmt.Errorf("version v0.7.0: %w", &pipeline.PreflightError{Missing: []pipeline.Missing{{What: "registry r.example", Err: errors.New("refused"), Fix: "--image"}}})
	assert.Equal(t, 8, exitCode(context.Background(), err))
}
