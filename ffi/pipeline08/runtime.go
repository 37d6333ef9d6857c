package pipeline08

/*
#include <stdlib.h>
#include "dynamo_llm_pipeline.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// runtimeArgs are the dynamo_llm_init arguments.
type runtimeArgs struct {
	namespace, component string
	kvBlockSize          uint32
}

// dynamoRuntime is initialised once per process and never shut down.
// Dynamo v0.8.0's dynamo_llm_init (lib/bindings/c/src/lib.rs at
// 115531a0c0bf) installs a global tracing subscriber with .expect(): a
// second call panics across the C boundary and aborts the process, even
// after dynamo_llm_shutdown. A failed init is remembered too: retrying it
// would be that second call. Later Routers share the runtime the first one
// initialised; their namespace and component name their own pipelines.
var dynamoRuntime struct {
	mu   sync.Mutex
	done bool
	err  error
}

func initRuntime(args runtimeArgs) error {
	dynamoRuntime.mu.Lock()
	defer dynamoRuntime.mu.Unlock()
	if dynamoRuntime.done {
		if dynamoRuntime.err != nil {
			return fmt.Errorf("dynamo runtime failed to initialise earlier in this process (it can only be initialised once): %w", dynamoRuntime.err)
		}
		return nil
	}
	ns := C.CString(args.namespace)
	defer C.free(unsafe.Pointer(ns))
	comp := C.CString(args.component)
	defer C.free(unsafe.Pointer(comp))
	dynamoRuntime.done = true
	dynamoRuntime.err = check("dynamo_llm_init", uint32(C.dynamo_llm_init(ns, comp, C.uint32_t(args.kvBlockSize))))
	return dynamoRuntime.err
}
