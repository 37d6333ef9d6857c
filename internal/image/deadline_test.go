package image

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/testutil"
)

// TestRegistryThatNeverAnswersTimesOut: a registry that accepts the
// connection and never answers fails verify (and every registry call, which
// share these options) at the deadline, with an error naming the registry
// and the setting that waits longer.
func TestRegistryThatNeverAnswersTimesOut(t *testing.T) {
	t.Setenv(netclient.TimeoutEnv, "300ms")
	host := testutil.SilentServer(t)
	err := testutil.Returns(t, "verifying against a silent registry", func() error {
		_, err := Verify(context.Background(), host+"/dynamo/epp:v1", []string{"linux/amd64"}, RegistryOptions{Insecure: true, Steps: 1})
		return err
	})
	var timeout *netclient.TimeoutError
	require.ErrorAs(t, err, &timeout)
	assert.Contains(t, err.Error(), "registry "+host+" did not answer in time")
	assert.Contains(t, err.Error(), netclient.TimeoutEnv)
}
