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

// runtimeArgs are the dynamo_llm_init arguments. The Dynamo runtime is
// process-wide, so every Router in a process must agree on them.
type runtimeArgs struct {
	namespace, component string
	kvBlockSize          uint32
}

// dynamoRuntime is initialised once per process and never shut down.
// Dynamo v0.7.0's dynamo_llm_init installs a global tracing subscriber
// with .expect(): a second call panics across the C boundary and aborts
// the process, even after dynamo_llm_shutdown (which only stops the
// runtime, so nothing could be created on it afterwards). A failed init is
// remembered too: retrying it would be that second call.
var dynamoRuntime struct {
	mu   sync.Mutex
	done bool
	args runtimeArgs
	err  error
}

func initRuntime(args runtimeArgs) error {
	dynamoRuntime.mu.Lock()
	defer dynamoRuntime.mu.Unlock()
	if dynamoRuntime.done {
		if dynamoRuntime.err != nil {
			return fmt.Errorf("dynamo runtime failed to initialise earlier in this process (it can only be initialised once): %w", dynamoRuntime.err)
		}
		if args != dynamoRuntime.args {
			return fmt.Errorf("dynamo runtime already initialised for namespace %q component %q kv block size %d; "+
				"all Routers in a process must use the same ones (got %q %q %d)",
				dynamoRuntime.args.namespace, dynamoRuntime.args.component, dynamoRuntime.args.kvBlockSize,
				args.namespace, args.component, args.kvBlockSize)
		}
		return nil
	}
	ns := C.CString(args.namespace)
	defer C.free(unsafe.Pointer(ns))
	comp := C.CString(args.component)
	defer C.free(unsafe.Pointer(comp))
	dynamoRuntime.done, dynamoRuntime.args = true, args
	dynamoRuntime.err = check("dynamo_llm_init", uint32(C.dynamo_llm_init(ns, comp, C.uint32_t(args.kvBlockSize))))
	return dynamoRuntime.err
}
