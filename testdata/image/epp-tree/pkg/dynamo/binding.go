// Package dynamo is a minimal cgo binding used as a build fixture.
package dynamo

/*
#cgo amd64 LDFLAGS: -L${SRCDIR}/lib/amd64 -ldynamo_llm_capi -ldl -lpthread -lm
#cgo arm64 LDFLAGS: -L${SRCDIR}/lib/arm64 -ldynamo_llm_capi -ldl -lpthread -lm
#include <stdlib.h>
#include "dynamo_llm_pipeline.h"
*/
import "C"

import "unsafe"

// InitAndShutdown starts and stops the library's runtime and returns both
// result codes (0 is success).
func InitAndShutdown() (uint32, uint32) {
	ns, comp := C.CString("ns"), C.CString("epp")
	defer C.free(unsafe.Pointer(ns))
	defer C.free(unsafe.Pointer(comp))
	return uint32(C.dynamo_llm_init(ns, comp, 16)), uint32(C.dynamo_llm_shutdown())
}
