package pipeline

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
)

// The errors a build names before it reaches a node: these need no daemon
// and run in the unit tier, without the package's TestMain.

func TestBuildKitUnreachable(t *testing.T) {
	opt, _, _ := testOptions(t, "127.0.0.1:1", "x/y")
	opt.BuildKit = []string{"unix://" + filepath.Join(t.TempDir(), "nobody-listens.sock")}
	_, err := runOpts(context.Background(), testInput(t), opt)
	var ue *image.UnreachableError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "nobody-listens.sock")
}

func TestBuildKitAddressRequired(t *testing.T) {
	t.Setenv("BUILDKIT_HOST", "")
	opt, _, _ := testOptions(t, "127.0.0.1:1", "x/y")
	opt.BuildKit = nil
	_, err := runOpts(context.Background(), testInput(t), opt)
	require.ErrorIs(t, err, image.ErrNoBuildKit)
	assert.Contains(t, err.Error(), "--buildkit")
	assert.Contains(t, err.Error(), "BUILDKIT_HOST")
}

func TestBadOptionsAreNamed(t *testing.T) {
	opt, _, _ := testOptions(t, "127.0.0.1:1", "x/y")
	opt.Push, opt.Compile, opt.Progress, opt.SBOM = false, "emulate", "loud", "scanner=x"
	_, err := runOpts(context.Background(), testInput(t), opt)
	require.Error(t, err)
	for _, want := range []string{"--push", "compile mode \"emulate\"", "progress \"loud\"", `--sbom="scanner=x": want true, false or generator=IMAGE`} {
		assert.Contains(t, err.Error(), want)
	}
}

func TestNoCAPISourceIsAClearError(t *testing.T) {
	opt, _, _ := testOptions(t, "127.0.0.1:1", "x/y")
	opt.CAPISrc = ""
	_, err := runOpts(context.Background(), testInput(t), opt)
	require.ErrorIs(t, err, ErrNoCAPI)
	assert.Contains(t, err.Error(), "--capi-src")
}

func TestCacheOptionErrorsAreUsageErrors(t *testing.T) {
	opt, _, _ := testOptions(t, "127.0.0.1:1", "x/y")
	opt.CacheFrom = []string{"type=inline"}
	opt.CacheTo = []string{"type=local"}
	_, err := runOpts(context.Background(), testInput(t), opt)
	var oe *OptionsError
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "--cache-from")
	assert.Contains(t, err.Error(), "--cache-to")
	assert.Contains(t, err.Error(), "dest=DIR")
}

func TestBuildNodeSpecIsAUsageError(t *testing.T) {
	opt, _, _ := testOptions(t, "127.0.0.1:1", "x/y")
	opt.BuildKit = []string{"linux/amd64=unix:///a.sock"}
	_, err := runOpts(context.Background(), testInput(t), opt)
	var oe *OptionsError
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "no node for linux/arm64")

	opt.BuildKit = []string{"linux/amd64=unix:///a.sock,linux/arm64=unix:///b.sock"}
	opt.OCITar = filepath.Join(t.TempDir(), "x.tar")
	_, err = runOpts(context.Background(), testInput(t), opt)
	require.ErrorAs(t, err, &oe)
	assert.Contains(t, err.Error(), "--oci-tar")
}
