// Package capidouble reads the test-only counters of the C API test double
// (testdata/capi-double), so tests can prove that memory handed out by the
// C API is freed exactly once and that no handle is misused. It links the
// double; production code must never import it.
package capidouble

/*
#cgo amd64 LDFLAGS: -L${SRCDIR}/lib/amd64
#cgo arm64 LDFLAGS: -L${SRCDIR}/lib/arm64
#cgo LDFLAGS: -ldynamo_llm_capi -ldl -lpthread -lm
#include <stdlib.h>
#include "double_hooks.h"
*/
import "C"

import "unsafe"

// IgnoredCalls counts calls the real library answers Ok without doing
// anything: freeing or marking an unknown request id, registering one twice.
func IgnoredCalls() int64 { return int64(C.dynamo_double_ignored_calls()) }

// RouterRuntimes counts the runtimes create_routers built; Dynamo never
// frees one, so a process should create its routers once.
func RouterRuntimes() int64 { return int64(C.dynamo_double_router_runtimes()) }

// Init calls dynamo_llm_init directly, bypassing any binding.
func Init(namespace string, kvBlockSize uint32) uint32 {
	ns := C.CString(namespace)
	defer C.free(unsafe.Pointer(ns))
	return uint32(C.dynamo_llm_init(ns, nil, C.uint32_t(kvBlockSize)))
}

// OutstandingResults is the number of pipeline query results not yet freed.
func OutstandingResults() int64 { return int64(C.dynamo_double_outstanding_results()) }

// LivePipelines is the number of pipelines created and not yet destroyed.
func LivePipelines() int64 { return int64(C.dynamo_double_live_pipelines()) }

// Violations counts misuse the real library would turn into undefined
// behaviour: a destroyed handle used, a handle destroyed with a call in
// flight, a result freed twice or a foreign pointer freed.
func Violations() int64 { return int64(C.dynamo_double_violations()) }

// InitKVBlockSize is the kv_block_size the last dynamo_llm_init received
// (0 when not initialised). A binding that declares init with the wrong
// number of parameters makes it arrive wrong.
func InitKVBlockSize() uint32 { return uint32(C.dynamo_double_init_kv_block_size()) }

// OutstandingBookings is the number of prefill bookings a router handle
// holds, -1 when the handle is not live.
func OutstandingBookings(handle unsafe.Pointer) int64 {
	return int64(C.dynamo_double_outstanding_bookings((*C.RouterHandles)(handle)))
}

// OutstandingRequests is the number of requests registered on a router
// handle and not freed, -1 when the handle is not live.
func OutstandingRequests(handle unsafe.Pointer) int64 {
	return int64(C.dynamo_double_outstanding_requests((*C.RouterHandles)(handle)))
}

// OutstandingRoutingResults is the number of routing results whose token
// buffers are not freed.
func OutstandingRoutingResults() int64 {
	return int64(C.dynamo_double_outstanding_routing_results())
}
