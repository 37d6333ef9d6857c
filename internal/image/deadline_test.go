package image

import (
	"context"
	"net"
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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	t.Cleanup(func() { close(done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	t.Setenv(netclient.TimeoutEnv, "300ms")
	host := l.Addr().String()
	err = testutil.Returns(t, "verifying against a silent registry", func() error {
		_, err := Verify(context.Background(), host+"/dynamo/epp:v1", []string{"linux/amd64"}, RegistryOptions{Insecure: true, Steps: 1})
		return err
	})
	var timeout *netclient.TimeoutError
	require.ErrorAs(t, err, &timeout)
	assert.Contains(t, err.Error(), "registry "+host+" did not answer in time")
	assert.Contains(t, err.Error(), netclient.TimeoutEnv)
}
