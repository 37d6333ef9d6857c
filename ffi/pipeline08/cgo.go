// Package pipeline08 binds the "pipeline" generation of Dynamo's Rust C API
// with the signatures of Dynamo v0.8.0: a worker-selection pipeline that
// picks a decode (and, disaggregated, a prefill) worker for a request, plus
// the router bookkeeping calls that track a request until it completes.
//
// The library is linked statically from lib/<goarch>/libdynamo_llm_capi.a
// next to this package (a build stage or ffi/build-double.sh puts it there).
package pipeline08

/*
#cgo amd64 LDFLAGS: -L${SRCDIR}/lib/amd64
#cgo arm64 LDFLAGS: -L${SRCDIR}/lib/arm64
#cgo LDFLAGS: -ldynamo_llm_capi -ldl -lpthread -lm
#include <stdlib.h>
#include "dynamo_llm_pipeline.h"
*/
import "C"
