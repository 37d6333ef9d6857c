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

// runtimeArgs are the dynamo_llm_init arguments. The Dynamo runtime is
// process-wide, so every Router in a process must agree on them.
type runtimeArgs struct {
	namespace, component string
	kvBlockSize          uint32
}

// dynamoRuntime counts the open Routers: the first initialises the runtime,
// the last to close shuts it down.
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
			return fmt.Errorf("dynamo runtime already initialised with %+v; all Routers in a process must use the same (got %+v)",
				dynamoRuntime.args, args)
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
	dynamoRuntime.refs, dynamoRuntime.args = 1, args
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
