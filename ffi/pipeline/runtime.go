package pipeline

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

// runtimeArgs are the dynamo_llm_init arguments. Dynamo v0.7.0 uses them
// only for its KV event publisher (dynamo_create_kv_publisher), which the
// EPP never calls; each pipeline names its own namespace and component.
type runtimeArgs struct {
	namespace, component string
	kvBlockSize          uint32
}

// dynamoRuntime is initialised once per process and never shut down.
// Dynamo v0.7.0's dynamo_llm_init installs a global tracing subscriber
// with .expect(): a second call panics across the C boundary and aborts
// the process, even after dynamo_llm_shutdown (which only stops the
// runtime, so nothing could be created on it afterwards). A failed init is
// remembered too: retrying it would be that second call. Later Routers
// with other arguments share the runtime the first one initialised.
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
