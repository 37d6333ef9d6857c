package routers

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by calls on Routers after Close has started.
var ErrClosed = errors.New("dynamo routers are closed")

// ErrPrefillReservationUnsupported is returned by a prefill reservation
// call the linked C API does not have: every call where it has none (as
// in every Dynamo release; variant routers_reservation none), and
// BeginPrefillReservation where the route call opens the booking itself
// (variants 2 and timeout).
var ErrPrefillReservationUnsupported = errors.New("prefill reservation is not supported by this build's Dynamo C API")

// CallError is a non-zero QueryRouterResult from a C API call.
type CallError struct {
	Call string // the C function, e.g. "route_decode_request"
	Code int
}

func (e *CallError) Error() string {
	return fmt.Sprintf("%s: code %d (%s)", e.Call, e.Code, codeText(e.Code))
}

// Result codes of the routers generation (Dynamo's QueryRouterResult).
const (
	CodeInvalidHandle  = 1
	CodeInvalidParam   = 2
	CodeInitFailed     = 3
	CodeQueryFailed    = 4
	CodeDisaggEnforced = 5
	CodeTimeout        = 6
	CodeBackpressure   = 7
)

func codeText(code int) string {
	switch code {
	case CodeInvalidHandle:
		return "invalid handle"
	case CodeInvalidParam:
		return "invalid parameter"
	case CodeInitFailed:
		return "router initialisation failed"
	case CodeQueryFailed:
		return "query failed"
	case CodeDisaggEnforced:
		return "disaggregated serving enforced but unavailable"
	case CodeTimeout:
		return "timed out"
	case CodeBackpressure:
		return "backpressure: router is saturated"
	default:
		return "unknown result code"
	}
}

func check(call string, code uint32) error {
	if code == 0 {
		return nil
	}
	return &CallError{Call: call, Code: int(code)}
}
