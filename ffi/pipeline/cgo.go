// Package pipeline binds the "pipeline" generation of Dynamo's Rust C API
// (Dynamo v0.6-v0.8): a worker-selection pipeline that picks a worker for a
// request, tokenizes it and annotates the body.
//
// The library is linked statically from lib/<goarch>/libdynamo_llm_capi.a
// next to this package (a build stage or ffi/build-double.sh puts it there).
package pipeline

/*
#cgo amd64 LDFLAGS: -L${SRCDIR}/lib/amd64
#cgo arm64 LDFLAGS: -L${SRCDIR}/lib/arm64
#cgo LDFLAGS: -ldynamo_llm_capi -ldl -lpthread -lm
#include <stdlib.h>
#include "dynamo_llm_pipeline.h"
*/
import "C"
