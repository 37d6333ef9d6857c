// Package llmresult turns the result codes of the "pipeline" generation of
// Dynamo's C API (dynamo_llm_result_t, the same in v0.7.0 and v0.8.0) into
// errors, for the bindings of both releases.
package llmresult

import (
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is returned by calls on a Router after Close.
var ErrClosed = errors.New("dynamo pipeline router is closed")

// CallError is a non-zero result code from a C API call.
type CallError struct {
	Call string // the C function, e.g. "dynamo_llm_init"
	Code int
}

func (e *CallError) Error() string {
	return fmt.Sprintf("%s: code %d (%s)", e.Call, e.Code, codeText(e.Code))
}

// codeText names a result code. Dynamo's library returns only 0 and 1; the
// C API test double returns the more specific codes 2-8 so tests can tell
// failures apart.
func codeText(code int) string {
	switch code {
	case 0:
		return "ok"
	case 1:
		return "error; the library logs the cause"
	case 2:
		return "runtime not initialized"
	case 3:
		return "null pointer argument"
	case 4:
		return "unknown model"
	case 5:
		return "bad request JSON"
	case 6:
		return "invalid pipeline handle"
	case 7:
		return "pipeline busy: a call is in flight"
	case 8:
		return "pointer not from a live result"
	default:
		return "unknown result code"
	}
}

// Check turns a result code into an error naming the call.
func Check(call string, code uint32) error {
	if code == 0 {
		return nil
	}
	return &CallError{Call: call, Code: int(code)}
}

// InitOnce runs dynamo_llm_init at most once per process and remembers
// the outcome. Dynamo's dynamo_llm_init (v0.7.0 and v0.8.0,
// lib/bindings/c/src/lib.rs) installs a global tracing subscriber with
// .expect(): a second call panics across the C boundary and aborts the
// process, even after dynamo_llm_shutdown. A failed init is remembered
// too: retrying it would be that second call.
type InitOnce struct {
	mu   sync.Mutex
	done bool
	err  error
}

// Do calls init (which returns dynamo_llm_init's result code) the first
// time and returns the first call's outcome every time after.
func (o *InitOnce) Do(init func() uint32) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done {
		if o.err != nil {
			return fmt.Errorf("dynamo runtime failed to initialise earlier in this process (it can only be initialised once): %w", o.err)
		}
		return nil
	}
	o.done = true
	o.err = Check("dynamo_llm_init", init())
	return o.err
}
