package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/compile"
)

// On a system that cannot compile on the host, the host mode (the default
// included) is refused before any work with the mode that works there;
// the container mode is not.
func TestHostCompileOffLinuxIsRefusedUpFront(t *testing.T) {
	saved := hostSystem
	hostSystem = func(feature, instead string) error {
		return &compile.SystemError{Feature: feature, OS: "darwin", Arch: "arm64", Instead: instead}
	}
	t.Cleanup(func() { hostSystem = saved })
	const want = "--compile host needs Linux (this is darwin/arm64): use --compile container"

	options := func(mode string) Options {
		opt, _, _ := testOptions(t, "127.0.0.1:1", "x/y")
		// No SBOM: the generator image is only there with the daemons.
		opt.Compile, opt.SBOM = mode, "false"
		return opt
	}
	for _, mode := range []string{CompileHost, ""} {
		opt := options(mode)
		var bad *OptionsError
		_, err := Resolve(opt)
		require.ErrorAs(t, err, &bad, "compile mode %q", mode)
		assert.Equal(t, []string{want}, bad.Problems, "compile mode %q", mode)
	}

	opt := options(CompileContainer)
	opt.BuilderImage = "127.0.0.1:1/builder"
	_, err := Resolve(opt)
	assert.NoError(t, err)
}
