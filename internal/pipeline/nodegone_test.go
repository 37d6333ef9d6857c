//go:build integration

package pipeline

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/testenv"
)

// onFirstWrite runs do once, when the log first shows match.
type onFirstWrite struct {
	w     *syncBuffer
	match string
	once  sync.Once
	do    func()
}

func (o *onFirstWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), o.match) {
		o.once.Do(func() { go o.do() })
	}
	return o.w.Write(p)
}

// A BuildKit node killed in the middle of its solve is named as the node
// that went away: no registry is blamed and nothing is retried against
// its refused socket.
func TestDeadNodeMidBuildIsNamedAsTheNode(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	dir, err := os.MkdirTemp(testDir, "dead")
	require.NoError(t, err)
	startCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	doomed, err := imagetest.StartBuildKit(startCtx, dir)
	if err != nil {
		testenv.Require(t, "another buildkitd", err.Error())
	}
	defer doomed.Stop()

	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-dead-node")
	opt.Platforms = platforms(t, "linux/"+runtime.GOARCH)
	opt.BuildKit = []string{doomed.Addr}
	opt.SBOM = "false"
	opt.Stderr = &onFirstWrite{w: errOut, match: "load build definition", do: doomed.Kill}
	_, err = runOpts(context.Background(), testInput(t), fastRetry(opt))
	var gone *image.NodeGoneError
	require.ErrorAs(t, err, &gone, errOut.String())
	assert.Contains(t, err.Error(), "BuildKit node "+doomed.Addr+" stopped answering during the build")
	var rse *image.RegistryServerError
	assert.False(t, errors.As(err, &rse), "no registry is blamed: %v", err)
	assert.NotContains(t, err.Error(), "is the registry up")
	assert.NotContains(t, errOut.String(), "retrying", "a dead node is not retried")
	assert.False(t, tagExists(t, opt.Image))
	t.Logf("error: %v", err)
}

// Container mode's SBOM generator failure (its C API stages run with the
// solve's attestations, so it fails there first) says which flags get
// past it, as host mode does.
func TestContainerModeUnreachableSBOMGeneratorSaysWhatToPass(t *testing.T) {
	requireDaemons(t)
	builder := builderImage(t)
	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-container-nogen")
	opt.Compile, opt.BuilderImage = CompileContainer, builder
	opt.Platforms = platforms(t, "linux/"+runtime.GOARCH)
	opt.SBOM = "generator=" + reg.Host + "/nobody/scanner:missing"
	_, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
	var ge *attest.GeneratorError
	require.ErrorAs(t, err, &ge, errOut.String())
	assert.Equal(t, reg.Host+"/nobody/scanner:missing", ge.Image)
	assert.Contains(t, err.Error(), "--sbom=false")
	assert.False(t, tagExists(t, opt.Image))
}
