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

// dynamoRuntime counts the open Routers: the first one initialises the
// runtime and the last one to close shuts it down, so closing one Router
// cannot pull the runtime from under another.
var dynamoRuntime struct {
	mu   sync.Mutex
	refs int
	args runtimeArgs
}

func acquireRuntime(args runtimeArgs) error {
	dynamoRuntime.mu.Lock()
	defer dynamoRuntime.mu.Unlock()
	if dynamoRuntime.refs > 0 {
		if args != dynamoRuntime.args {
			return fmt.Errorf("dynamo runtime already initialised for namespace %q component %q kv block size %d; "+
				"all Routers in a process must use the same ones (got %q %q %d)",
				dynamoRuntime.args.namespace, dynamoRuntime.args.component, dynamoRuntime.args.kvBlockSize,
				args.namespace, args.component, args.kvBlockSize)
		}
		dynamoRuntime.refs++
		return nil
	}
	ns := C.CString(args.namespace)
	defer C.free(unsafe.Pointer(ns))
	comp := C.CString(args.component)
	defer C.free(unsafe.Pointer(comp))
	if err := check("dynamo_llm_init", uint32(C.dynamo_llm_init(ns, comp, C.uint32_t(args.kvBlockSize)))); err != nil {
		return err
	}
	dynamoRuntime.refs = 1
	dynamoRuntime.args = args
	return nil
}

func releaseRuntime() error {
	dynamoRuntime.mu.Lock()
	defer dynamoRuntime.mu.Unlock()
	if dynamoRuntime.refs == 0 {
		return nil
	}
	dynamoRuntime.refs--
	if dynamoRuntime.refs > 0 {
		return nil
	}
	return check("dynamo_llm_shutdown", uint32(C.dynamo_llm_shutdown()))
}
