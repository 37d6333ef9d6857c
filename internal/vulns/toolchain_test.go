package vulns

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/recipe"
)

func TestALineIsScannedWithItsToolchain(t *testing.T) {
	env := []string{"HOME=/h", "GOTOOLCHAIN=local", "GOVERSION=go1.26.8", "GOFLAGS=-mod=mod"}
	assert.Equal(t, []string{"HOME=/h", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=go1.26.10"},
		lineEnv(&recipe.Recipe{Toolchain: "go1.26.10"}, env), "the recipe's Go, not the one env asks for")
	assert.Equal(t, env, lineEnv(&recipe.Recipe{}, env), "without a toolchain the scan runs the Go at hand")
	assert.Equal(t, []string{"HOME=/h", "GOTOOLCHAIN=local", "GOVERSION=go1.26.8", "GOFLAGS=-mod=mod"}, env, "env itself is left as it was")
}
