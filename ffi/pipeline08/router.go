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
	"sync/atomic"
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
// Dynamo v0.8's library allows one call at a time on a pipeline: the query
// and dynamo_router_add_request must not run concurrently on it, and
// destroy must not overlap any call. So every call that takes the pipeline
// (query, add_request, mark_prefill_complete, free_request, destroy) holds
// the Router's one slot; goroutines queue for it. Close first refuses new
// calls, then takes the slot after the call in flight and destroys once,
// so nothing runs on a destroyed pipeline (Dynamo's own scorer copied the
// pointer and called Rust unlocked: a use-after-free on shutdown). Freeing
// a query's result takes no pipeline and runs outside the slot.
type Router struct {
	// slot holds a token while a C call runs on handle; it guards handle.
	slot chan struct{}
	// closing refuses calls that arrive once Close has started.
	closing atomic.Bool
	handle  *C.WorkerSelectionPipeline // nil once closed
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
	return &Router{slot: make(chan struct{}, 1), handle: handle}, nil
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

// acquire waits for the slot (or ctx) and returns the live pipeline; the
// caller runs one C call on it and then calls release. ErrClosed once Close
// has started.
func (r *Router) acquire(ctx context.Context) (*C.WorkerSelectionPipeline, error) {
	if r.closing.Load() {
		return nil, ErrClosed
	}
	select {
	case r.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if r.handle == nil {
		r.release()
		return nil, ErrClosed
	}
	return r.handle, nil
}

func (r *Router) release() { <-r.slot }

// Select picks the workers for requestJSON (an OpenAI chat or completion
// body). ctx bounds the wait for the pipeline; the C call itself cannot be
// interrupted.
func (r *Router) Select(ctx context.Context, requestJSON []byte) (Selection, error) {
	if err := ctx.Err(); err != nil {
		return Selection{}, fmt.Errorf("select worker: %w", err)
	}
	req := C.CString(string(requestJSON))
	defer C.free(unsafe.Pointer(req))
	var (
		decode, prefill C.int64_t
		tokens          *C.uint32_t
		count           C.size_t
		annotated       *C.char
	)
	handle, err := r.acquire(ctx)
	if err != nil {
		if errors.Is(err, ErrClosed) {
			return Selection{}, err
		}
		return Selection{}, fmt.Errorf("select worker: %w", err)
	}
	code := C.dynamo_query_worker_selection_and_annotate(handle, req, &decode, &prefill, &tokens, &count, &annotated)
	r.release()
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
	// The free takes no pipeline, so it does not hold the slot.
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
	id := C.CString(requestID)
	defer C.free(unsafe.Pointer(id))
	handle, err := r.acquire(context.Background())
	if err != nil {
		return err
	}
	code := do(handle, id)
	r.release()
	return check(call, uint32(code))
}

// Close destroys the pipeline; the runtime stays (see initRuntime). Calls
// that arrive after Close has started return ErrClosed; Close waits for the
// call in flight (it holds no lock a C call needs, so it cannot deadlock
// against one) and destroys once. It is idempotent.
func (r *Router) Close() error {
	r.closing.Store(true)
	r.slot <- struct{}{}
	defer r.release()
	if r.handle == nil {
		return nil
	}
	err := check("dynamo_destroy_worker_selection_pipeline",
		uint32(C.dynamo_destroy_worker_selection_pipeline(r.handle)))
	r.handle = nil
	return err
}
