package pipeline08

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
	// EnforceDisagg makes the router fail requests when disaggregated
	// serving is unavailable instead of falling back to aggregated.
	EnforceDisagg bool
}

// NoPrefillWorker is the prefill worker id of a request that is not
// disaggregated.
const NoPrefillWorker = -1

// Selection is one routing decision, copied into Go memory.
type Selection struct {
	DecodeWorkerID int64
	// PrefillWorkerID is NoPrefillWorker unless the request is disaggregated.
	PrefillWorkerID  int64
	TokenIDs         []uint32
	AnnotatedRequest []byte
}

// Router owns one worker-selection pipeline. It is safe for concurrent use.
//
// Every C call runs under the read lock and Close takes the write lock, so
// Close waits for calls in flight and nothing runs on a destroyed pipeline
// (Dynamo's own scorer copied the pointer and called Rust unlocked: a
// use-after-free on shutdown). The bookkeeping calls are also serialised by
// book, because Dynamo's library does not allow them concurrently on one
// pipeline.
type Router struct {
	mu     sync.RWMutex
	book   sync.Mutex
	handle *C.WorkerSelectionPipeline // nil once closed
}

// Open initialises the Dynamo runtime (once per process; see initRuntime) and creates a
// pipeline for cfg.Model.
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
		C.double(cfg.RouterTemperature), C.bool(cfg.UseKVEvents), C.bool(cfg.RouterReplicaSync),
		C.bool(cfg.EnforceDisagg), &handle)
	if err := check("dynamo_create_worker_selection_pipeline", uint32(code)); err != nil {
		return nil, err
	}
	if handle == nil {
		return nil, errors.New("dynamo_create_worker_selection_pipeline: returned OK without a pipeline")
	}
	return handle, nil
}

// Select picks the workers for requestJSON (an OpenAI chat or completion
// body). The C call cannot be interrupted: ctx is checked before it starts.
func (r *Router) Select(ctx context.Context, requestJSON []byte) (Selection, error) {
	if err := ctx.Err(); err != nil {
		return Selection{}, fmt.Errorf("select worker: %w", err)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.handle == nil {
		return Selection{}, ErrClosed
	}
	req := C.CString(string(requestJSON))
	defer C.free(unsafe.Pointer(req))
	var (
		decode, prefill C.int64_t
		tokens          *C.uint32_t
		count           C.size_t
		annotated       *C.char
	)
	code := C.dynamo_query_worker_selection_and_annotate(r.handle, req, &decode, &prefill, &tokens, &count, &annotated)
	if err := check("dynamo_query_worker_selection_and_annotate", uint32(code)); err != nil {
		return Selection{}, err
	}
	sel := Selection{DecodeWorkerID: int64(decode), PrefillWorkerID: int64(prefill)}
	if sel.PrefillWorkerID < 0 {
		sel.PrefillWorkerID = NoPrefillWorker
	}
	if tokens != nil && count > 0 {
		sel.TokenIDs = make([]uint32, int(count))
		copy(sel.TokenIDs, unsafe.Slice((*uint32)(unsafe.Pointer(tokens)), int(count)))
	}
	if annotated != nil {
		sel.AnnotatedRequest = []byte(C.GoString(annotated))
	}
	// Freed exactly once, right after the copy: nothing keeps a C pointer.
	if err := check("dynamo_free_worker_selection_result",
		uint32(C.dynamo_free_worker_selection_result(tokens, count, annotated))); err != nil {
		return Selection{}, err
	}
	return sel, nil
}

// AddRequest registers a routed request with the router's bookkeeping, so
// its load counts against workerID until FreeRequest.
func (r *Router) AddRequest(requestID string, tokens []uint32, workerID uint64, dpRank uint32) error {
	return r.bookkeeping("dynamo_router_add_request", requestID, func(h *C.WorkerSelectionPipeline, id *C.char) C.dynamo_llm_result_t {
		var first *C.uint32_t
		if len(tokens) > 0 {
			// C copies the tokens during the call; Go memory is not kept.
			first = (*C.uint32_t)(unsafe.Pointer(&tokens[0]))
		}
		return C.dynamo_router_add_request(h, id, first, C.size_t(len(tokens)), C.uint64_t(workerID), C.uint32_t(dpRank))
	})
}

// MarkPrefillComplete releases a request's prefill load.
func (r *Router) MarkPrefillComplete(requestID string) error {
	return r.bookkeeping("dynamo_router_mark_prefill_complete", requestID, func(h *C.WorkerSelectionPipeline, id *C.char) C.dynamo_llm_result_t {
		return C.dynamo_router_mark_prefill_complete(h, id)
	})
}

// FreeRequest removes a request from the router's bookkeeping. The library
// treats an unknown id as success.
func (r *Router) FreeRequest(requestID string) error {
	return r.bookkeeping("dynamo_router_free_request", requestID, func(h *C.WorkerSelectionPipeline, id *C.char) C.dynamo_llm_result_t {
		return C.dynamo_router_free_request(h, id)
	})
}

func (r *Router) bookkeeping(call, requestID string, do func(*C.WorkerSelectionPipeline, *C.char) C.dynamo_llm_result_t) error {
	if requestID == "" {
		return fmt.Errorf("%s: empty request id", call)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.handle == nil {
		return ErrClosed
	}
	id := C.CString(requestID)
	defer C.free(unsafe.Pointer(id))
	r.book.Lock()
	defer r.book.Unlock()
	return check(call, uint32(do(r.handle, id)))
}

// Close destroys the pipeline once no call is in flight; the runtime stays
// (see initRuntime). It is idempotent; later calls on r return ErrClosed.
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
