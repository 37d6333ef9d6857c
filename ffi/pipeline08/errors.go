package pipeline08

import "github.com/epp-build/epp-build/ffi/llmresult"

// ErrClosed is returned by calls on a Router after Close.
var ErrClosed = llmresult.ErrClosed

// CallError is a non-zero result code from a C API call.
type CallError = llmresult.CallError

// check turns a result code into an error naming the call.
func check(call string, code uint32) error { return llmresult.Check(call, code) }
