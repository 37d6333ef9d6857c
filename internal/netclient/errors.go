package netclient

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// TimeoutError is a request to Host that ran into one of the deadlines.
type TimeoutError struct {
	// What is the server's role ("module proxy", "registry").
	What string
	Host string
	Err  error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s %s did not answer in time (%v); if it is only slow, set %s to a longer duration (such as 5m), else check that %s is reachable and the right server",
		e.What, e.Host, e.Err, TimeoutEnv, e.Host)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// Describe turns a deadline hit on a request to host into a *TimeoutError
// and returns every other error as it is. A cancelled context is not a
// timeout: the user stopped the command.
func Describe(what, host string, err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	var stall *StallError
	var ne net.Error
	if errors.As(err, &stall) || (errors.As(err, &ne) && ne.Timeout()) {
		return &TimeoutError{What: what, Host: host, Err: err}
	}
	return err
}
