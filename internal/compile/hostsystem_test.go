package compile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHostCompileNeedsLinux(t *testing.T) {
	require.NoError(t, checkSystem("linux", "arm64", "--compile host", "use --compile container"))

	err := checkSystem("darwin", "arm64", "--compile host", "use --compile container")
	var sys *SystemError
	require.ErrorAs(t, err, &sys)
	assert.EqualError(t, err, "--compile host needs Linux (this is darwin/arm64): use --compile container")

	assert.EqualError(t, checkSystem("darwin", "amd64", "compiling on the host", ""), "compiling on the host needs Linux (this is darwin/amd64)")
}
