package compile

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary stands in for a built EPP: its build info names the Go
// that built it.
func TestBuiltWithChecksTheBinarysBuildInfo(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)

	got, err := builtWith(exe, "")
	require.NoError(t, err)
	assert.Equal(t, runtime.Version(), got)

	got, err = builtWith(exe, runtime.Version())
	require.NoError(t, err)
	assert.Equal(t, runtime.Version(), got)

	_, err = builtWith(exe, "go1.21.0")
	var mismatch *ToolchainMismatchError
	require.True(t, errors.As(err, &mismatch), "%v", err)
	assert.Equal(t, runtime.Version(), mismatch.Got)
	assert.Contains(t, err.Error(), "not the recipe's toolchain go1.21.0")
}

func TestBuiltWithRefusesWhatIsNoGoBinary(t *testing.T) {
	path := t.TempDir() + "/epp"
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755))
	_, err := builtWith(path, "")
	assert.ErrorContains(t, err, "read the build info of "+path)
}
