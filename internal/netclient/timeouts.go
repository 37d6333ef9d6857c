package netclient

import (
	"fmt"
	"os"
	"time"
)

// Defaults. A module zip or an image index read from a healthy server
// moves many KiB a second; a server that gives less than MinProgress bytes
// in a whole Stall window has stopped, or drips bytes to hold the client.
const (
	DefaultConnect = 30 * time.Second
	DefaultHeader  = 60 * time.Second
	DefaultStall   = 60 * time.Second
	MinProgress    = 1 << 10
)

// TimeoutEnv overrides all three deadlines at once, as a Go duration
// ("2m", "90s"): for a slow link or a registry that takes long to answer.
const TimeoutEnv = "EPP_BUILD_NET_TIMEOUT"

// Timeouts are the deadlines of one transport.
type Timeouts struct {
	// Connect bounds the TCP connect and the TLS handshake.
	Connect time.Duration
	// Header bounds the wait for the response headers once the request
	// is sent.
	Header time.Duration
	// Stall is the window in which a response body must move at least
	// MinProgress bytes (or end).
	Stall time.Duration
}

// FromEnv is the defaults, or TimeoutEnv for all three when it is set. A
// value that is not a positive duration is an error naming the variable.
func FromEnv() (Timeouts, error) {
	t := Timeouts{Connect: DefaultConnect, Header: DefaultHeader, Stall: DefaultStall}
	v := os.Getenv(TimeoutEnv)
	if v == "" {
		return t, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return t, fmt.Errorf("%s=%q: want a positive Go duration such as 90s or 5m", TimeoutEnv, v)
	}
	return Timeouts{Connect: d, Header: d, Stall: d}, nil
}
