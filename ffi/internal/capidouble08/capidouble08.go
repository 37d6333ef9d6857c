// Package capidouble08 reads the test-only counters of the C API test
// double built with Dynamo v0.8.0's pipeline signatures (feature
// pipeline08), which pipeline08's tests link. Production code must never
// import it.
package capidouble08

/*
#cgo amd64 LDFLAGS: -L${SRCDIR}/lib/amd64
#cgo arm64 LDFLAGS: -L${SRCDIR}/lib/arm64
#cgo LDFLAGS: -ldynamo_llm_capi -ldl -lpthread -lm
#include "hooks.h"
*/
import "C"

// OutstandingResults is the number of query results not yet freed.
func OutstandingResults() int64 { return int64(C.dynamo_double_outstanding_results()) }

// LivePipelines is the number of pipelines created and not destroyed.
func LivePipelines() int64 { return int64(C.dynamo_double_live_pipelines()) }

// Violations counts misuse the real library would turn into undefined
// behaviour, including concurrent bookkeeping calls on one pipeline.
func Violations() int64 { return int64(C.dynamo_double_violations()) }

// RegisteredRequests is the number of request ids added and not freed.
func RegisteredRequests() int64 { return int64(C.dynamo_double_registered_requests()) }
