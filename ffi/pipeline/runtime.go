package pipeline

/*
#include <stdlib.h>
#include "dynamo_llm_pipeline.h"
*/
import "C"

import (
	"unsafe"

	"github.com/epp-build/epp-build/ffi/llmresult"
)

// runtimeArgs are the dynamo_llm_init arguments. Dynamo v0.7.0 uses them
// only for its KV event publisher (dynamo_create_kv_publisher), which the
// EPP never calls; each pipeline names its own namespace and component.
type runtimeArgs struct {
	namespace, component string
	kvBlockSize          uint32
}

// dynamoRuntime is initialised once per process and never shut down (see
// llmresult.InitOnce: Dynamo v0.7.0 aborts on a second dynamo_llm_init).
// Later Routers share the runtime the first one initialised; their
// namespace and component name their own pipelines.
var dynamoRuntime llmresult.InitOnce

func initRuntime(args runtimeArgs) error {
	return dynamoRuntime.Do(func() uint32 {
		ns := C.CString(args.namespace)
		defer C.free(unsafe.Pointer(ns))
		comp := C.CString(args.component)
		defer C.free(unsafe.Pointer(comp))
		return uint32(C.dynamo_llm_init(ns, comp, C.uint32_t(args.kvBlockSize)))
	})
}
