package gotoolchain

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The go command names a toolchain module by release and platform; a
// wrong name is a module the proxy does not have.
func TestModuleIsTheGoCommandsToolchainModule(t *testing.T) {
	assert.Equal(t, "golang.org/toolchain@v0.0.1-go1.26.10.linux-arm64", Module("go1.26.10", "arm64"))
}
