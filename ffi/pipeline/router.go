package pipeline

/*
#include <stdlib.h>
#include "dynamo_llm_pipeline.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Config holds the arguments of dynamo_llm_init and
// dynamo_create_worker_selection_pipeline.
type Config struct {
	Namespace, Component, Model string
	KVBlockSize                 uint32
	UseKVRouting                bool
	BusyThreshold               float64
	OverlapScoreWeight          float64
	RouterTemperature           float64
	UseKVEvents                 bool
	RouterReplicaSync           bool
}

// Selection is one routing decision, copied into Go memory.
type Selection struct {
	WorkerID         int64
	TokenIDs         []uint32
	AnnotatedRequest []byte // the request JSON with nvext.backend_instance_id and nvext.token_data
}

// Router owns one worker-selection pipeline. It is safe for concurrent use.
//
// Every C call on the pipeline runs under one mutex, Close included. Dynamo
// v0.7.0's contract for dynamo_query_worker_selection_and_annotate forbids
// concurrent calls on the same pipeline, and destroy must not overlap any
// call; so queries on one Router run one at a time, Close waits for the
// query in flight and no call can start on a destroyed pipeline. (Dynamo's
// own scorer copied the pointer under the lock and called Rust after
// releasing it: a use-after-free on shutdown.)
type Router struct {
	mu     sync.Mutex
	handle *C.WorkerSelectionPipeline // nil once closed
}

// Open initialises the Dynamo runtime (once per process; see initRuntime)
// and creates a pipeline for cfg.Model.
func Open(cfg Config) (*Router, error) {
	if cfg.Namespace == "" || cfg.Model == "" {
		return nil, errors.New("open dynamo pipeline: namespace and model are required")
	}
	if cfg.KVBlockSize == 0 {
		return nil, errors.New("open dynamo pipeline: KV block size must be positive (the workers' kv_block_size)")
	}
	if err := initRuntime(runtimeArgs{cfg.Namespace, cfg.Component, cfg.KVBlockSize}); err != nil {
		return nil, fmt.Errorf("open dynamo pipeline for model %q: %w", cfg.Model, err)
	}
	handle, err := createPipeline(cfg)
	if err != nil {
		return nil, fmt.Errorf("open dynamo pipeline for model %q: %w", cfg.Model, err)
	}
	return &Router{handle: handle}, nil
}

func createPipeline(cfg Config) (*C.WorkerSelectionPipeline, error) {
	ns := C.CString(cfg.Namespace)
	defer C.free(unsafe.Pointer(ns))
	comp := C.CString(cfg.Component)
	defer C.free(unsafe.Pointer(comp))
	model := C.CString(cfg.Model)
	defer C.free(unsafe.Pointer(model))
	var handle *C.WorkerSelectionPipeline
	code := C.dynamo_create_worker_selection_pipeline(ns, comp, model,
		C.bool(cfg.UseKVRouting), C.double(cfg.BusyThreshold), C.double(cfg.OverlapScoreWeight),
		C.double(cfg.RouterTemperature), C.bool(cfg.UseKVEvents), C.bool(cfg.RouterReplicaSync), &handle)
	if err := check("dynamo_create_worker_selection_pipeline", uint32(code)); err != nil {
		return nil, err
	}
	if handle == nil {
		return nil, errors.New("dynamo_create_worker_selection_pipeline: returned OK without a pipeline")
	}
	return handle, nil
}

// Select picks a worker for requestJSON (an OpenAI chat or completion body).
// The C call cannot be interrupted: ctx is checked before it starts.
func (r *Router) Select(ctx context.Context, requestJSON []byte) (Selection, error) {
	if err := ctx.Err(); err != nil {
		return Selection{}, fmt.Errorf("select worker: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.handle == nil {
		return Selection{}, ErrClosed
	}
	req := C.CString(string(requestJSON))
	defer C.free(unsafe.Pointer(req))

	var (
		workerID  C.int64_t
		tokens    *C.uint32_t
		count     C.size_t
		annotated *C.char
	)
	code := C.dynamo_query_worker_selection_and_annotate(r.handle, req, &workerID, &tokens, &count, &annotated)
	if err := check("dynamo_query_worker_selection_and_annotate", uint32(code)); err != nil {
		return Selection{}, err
	}
	sel := copySelection(int64(workerID), tokens, count, annotated)
	// Freed exactly once, right after the copy: nothing keeps a C pointer.
	if err := check("dynamo_free_worker_selection_result",
		uint32(C.dynamo_free_worker_selection_result(tokens, count, annotated))); err != nil {
		return Selection{}, err
	}
	return sel, nil
}

func copySelection(workerID int64, tokens *C.uint32_t, count C.size_t, annotated *C.char) Selection {
	sel := Selection{WorkerID: workerID}
	if tokens != nil && count > 0 {
		sel.TokenIDs = make([]uint32, int(count))
		copy(sel.TokenIDs, unsafe.Slice((*uint32)(unsafe.Pointer(tokens)), int(count)))
	}
	if annotated != nil {
		sel.AnnotatedRequest = []byte(C.GoString(annotated))
	}
	return sel
}

// Close destroys the pipeline once no call is in flight; the process-wide
// runtime stays (see initRuntime). It is idempotent; later calls on r return ErrClosed.
func (r *Router) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.handle == nil {
		return nil
	}
	err := check("dynamo_destroy_worker_selection_pipeline",
		uint32(C.dynamo_destroy_worker_selection_pipeline(r.handle)))
	r.handle = nil
	return err
}
