package testutil

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// SilentServer listens on loopback, accepts every connection and never
// answers, as a server whose backend hangs does; it returns host:port.
// Connections are closed when the test ends.
func SilentServer(t testing.TB) string {
	t.Helper()
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
	return l.Addr().String()
}
