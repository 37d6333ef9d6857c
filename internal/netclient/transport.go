package netclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Transport is an http.Transport with t's deadlines: Connect on the dial
// and the TLS handshake, Header on the response headers, Stall on every
// read of the connection (see stallConn). Proxies come from the
// environment as with http.DefaultTransport.
func Transport(t Timeouts) *http.Transport {
	dialer := &net.Dialer{Timeout: t.Connect, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return newStallConn(c, t.Stall), nil
		},
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   t.Connect,
		ResponseHeaderTimeout: t.Header,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConns:          100,
	}
}

// stallConn fails a read when the connection has moved fewer than
// MinProgress bytes in a whole stall window: a server that stops answering
// and one that sends a byte now and then are both ended. The window starts
// again whenever MinProgress bytes have come, so a healthy transfer of any
// size is never cut.
type stallConn struct {
	net.Conn
	stall time.Duration

	mu       sync.Mutex
	progress int
	armed    bool
}

func newStallConn(c net.Conn, stall time.Duration) net.Conn {
	if stall <= 0 {
		return c
	}
	return &stallConn{Conn: c, stall: stall}
}

func (c *stallConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if !c.armed {
		_ = c.Conn.SetReadDeadline(time.Now().Add(c.stall))
		c.armed, c.progress = true, 0
	}
	c.mu.Unlock()
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.progress += n
	if c.progress >= MinProgress {
		c.armed = false
	}
	c.mu.Unlock()
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return n, &StallError{Stall: c.stall}
	}
	return n, err
}

// Write starts a fresh window: a request sent on a connection that sat
// idle in the pool gets the whole window for its answer, and the read
// already waiting on the connection gets the new deadline.
func (c *stallConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	_ = c.Conn.SetReadDeadline(time.Now().Add(c.stall))
	c.armed, c.progress = true, 0
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// StallError is a connection that moved fewer than MinProgress bytes in
// Stall.
type StallError struct{ Stall time.Duration }

func (e *StallError) Error() string {
	return fmt.Sprintf("the server sent less than %d bytes in %v", MinProgress, e.Stall)
}

// Timeout makes it a net.Error timeout, as the deadline behind it is.
func (e *StallError) Timeout() bool   { return true }
func (e *StallError) Temporary() bool { return false }
