package routers

/*
#include <stdlib.h>
#include "dynamo_llm_routers.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// UnsetDPRank is the data-parallel rank meaning "not set".
const UnsetDPRank = ^uint32(0)

// Result is one routing decision, copied into Go memory.
type Result struct {
	Disaggregated   bool
	PrefillWorkerID uint64
	DecodeWorkerID  uint64
	PrefillDPRank   uint32
	DecodeDPRank    uint32
	TokenIDs        []uint32
	CacheNamespace  string
}

// Routers owns one router pair handle. It is safe for concurrent use.
//
// Every C call runs as a registered call in flight; Close stops new calls,
// cancels the reservations still being made (a reservation can wait for
// admission inside Rust, and nothing else would wake it), waits for the
// calls in flight, and only then destroys the handle. An RWMutex is not
// enough here: a Close waiting for the write lock would block the cancel
// that a waiting reservation needs, and deadlock.
type Routers struct {
	mu        sync.Mutex
	handle    *C.RouterHandles // nil once destroyed
	closing   bool
	closed    chan struct{}
	inFlight  sync.WaitGroup
	reserving map[string]int // booking id -> reserve calls in flight
}

// Open creates the router pair for a namespace and component ("" means
// the library's default, "backend").
func Open(namespace, component string, enforceDisagg bool) (*Routers, error) {
	if namespace == "" {
		return nil, errors.New("open dynamo routers: namespace is required")
	}
	ns := C.CString(namespace)
	defer C.free(unsafe.Pointer(ns))
	comp := C.CString(component)
	defer C.free(unsafe.Pointer(comp))
	var handle *C.RouterHandles
	if err := check("create_routers", uint32(C.create_routers(ns, comp, C.bool(enforceDisagg), &handle))); err != nil {
		return nil, fmt.Errorf("open dynamo routers for namespace %q: %w", namespace, err)
	}
	if handle == nil {
		return nil, errors.New("create_routers: returned Ok without a handle")
	}
	return &Routers{handle: handle, closed: make(chan struct{}), reserving: map[string]int{}}, nil
}

// enter registers a call in flight; the caller must call leave. A
// non-empty bookingID marks a reservation in flight, registered under the
// same lock as the call so that Close cannot miss it.
func (r *Routers) enter(bookingID string) (*C.RouterHandles, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return nil, ErrClosed
	}
	r.inFlight.Add(1)
	if bookingID != "" {
		r.reserving[bookingID]++
	}
	return r.handle, nil
}

func (r *Routers) leave(bookingID string) {
	if bookingID != "" {
		r.mu.Lock()
		if r.reserving[bookingID]--; r.reserving[bookingID] <= 0 {
			delete(r.reserving, bookingID)
		}
		r.mu.Unlock()
	}
	r.inFlight.Done()
}

// call runs fn with the live handle as a call in flight.
func (r *Routers) call(bookingID string, fn func(h *C.RouterHandles) error) error {
	h, err := r.enter(bookingID)
	if err != nil {
		return err
	}
	defer r.leave(bookingID)
	return fn(h)
}

// cString returns a C copy of b, or nil for a nil slice (the C API reads a
// null pods list as "no filter").
func cString(b []byte) *C.char {
	if b == nil {
		return nil
	}
	return C.CString(string(b))
}

// takeResult copies a routing result into Go memory and frees it, once.
// The fields the bound variant lacks read as unset (copyResult).
func takeResult(out *C.CRoutingResult) Result {
	defer C.free_routing_result(out)
	return copyResult(out)
}

func copyTokens(ids *C.uint32_t, count C.size_t) []uint32 {
	if ids == nil || count == 0 {
		return nil
	}
	tokens := make([]uint32, int(count))
	copy(tokens, unsafe.Slice((*uint32)(unsafe.Pointer(ids)), int(count)))
	return tokens
}

// RoutePrefill picks a prefill worker among pods (EPP's pods JSON; nil for
// no filter). The C call cannot be interrupted: ctx is checked before it.
func (r *Routers) RoutePrefill(ctx context.Context, requestJSON, podsJSON []byte) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var res Result
	err := r.call("", func(h *C.RouterHandles) error {
		req, pods := cString(requestJSON), cString(podsJSON)
		defer C.free(unsafe.Pointer(req))
		defer C.free(unsafe.Pointer(pods))
		var out C.CRoutingResult
		if err := check("route_prefill_request", uint32(C.route_prefill_request(h, req, pods, &out))); err != nil {
			return err
		}
		res = takeResult(&out)
		return nil
	})
	return res, err
}

// RouteDecode picks a decode worker among pods.
func (r *Routers) RouteDecode(ctx context.Context, requestJSON, podsJSON []byte, disaggregated bool) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	var res Result
	err := r.call("", func(h *C.RouterHandles) error {
		req, pods := cString(requestJSON), cString(podsJSON)
		defer C.free(unsafe.Pointer(req))
		defer C.free(unsafe.Pointer(pods))
		var out C.CRoutingResult
		code := C.route_decode_request(h, req, pods, C.bool(disaggregated), &out)
		if err := check("route_decode_request", uint32(code)); err != nil {
			return err
		}
		res = takeResult(&out)
		return nil
	})
	return res, err
}

// AddRequest registers a routed request with the decode worker's load,
// with its cache namespace ("" for none; dropped where the library has no
// cache namespaces, variant routers_add 6).
func (r *Routers) AddRequest(requestID string, tokenIDs []uint32, workerID uint64, dpRank uint32, cacheNamespace string) error {
	return r.call("", func(h *C.RouterHandles) error {
		id := C.CString(requestID)
		defer C.free(unsafe.Pointer(id))
		// Go memory without Go pointers may be passed for the call's duration.
		var tokens *C.uint32_t
		if len(tokenIDs) > 0 {
			tokens = (*C.uint32_t)(unsafe.Pointer(&tokenIDs[0]))
		}
		return addRequest(h, id, tokens, len(tokenIDs), workerID, dpRank, cacheNamespace)
	})
}

func (r *Routers) idCall(name string, id string, fn func(*C.RouterHandles, *C.char) C.QueryRouterResult) error {
	return r.call("", func(h *C.RouterHandles) error {
		cid := C.CString(id)
		defer C.free(unsafe.Pointer(cid))
		return check(name, uint32(fn(h, cid)))
	})
}

// MarkPrefillComplete records the first token of a request.
func (r *Routers) MarkPrefillComplete(requestID string) error {
	return r.idCall("mark_prefill_complete", requestID, func(h *C.RouterHandles, id *C.char) C.QueryRouterResult {
		return C.mark_prefill_complete(h, id)
	})
}

// FreeRequest ends a request (and any booking of the same id).
func (r *Routers) FreeRequest(requestID string) error {
	return r.idCall("free_request", requestID, func(h *C.RouterHandles, id *C.char) C.QueryRouterResult {
		return C.free_request(h, id)
	})
}

// cancelEach cancels each booking id with cancel (the variant's C call)
// and collects the failures.
func cancelEach(ids []string, cancel func(id *C.char) C.QueryRouterResult) []error {
	var errs []error
	for _, id := range ids {
		cid := C.CString(id)
		if err := check("cancel_prefill_reservation", uint32(cancel(cid))); err != nil {
			errs = append(errs, fmt.Errorf("close: booking %s: %w", id, err))
		}
		C.free(unsafe.Pointer(cid))
	}
	return errs
}

// Close stops new calls, cancels reservations in flight, waits for every
// call in flight and destroys the handle. It is idempotent; concurrent
// callers all return once the handle is gone.
func (r *Routers) Close() error {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		<-r.closed
		return nil
	}
	r.closing = true
	h := r.handle
	pending := make([]string, 0, len(r.reserving))
	for id := range r.reserving {
		pending = append(pending, id)
	}
	r.mu.Unlock()

	errs := cancelReservations(h, pending)
	r.inFlight.Wait()
	C.destroy(h)

	r.mu.Lock()
	r.handle = nil
	r.mu.Unlock()
	close(r.closed)
	return errors.Join(errs...)
}
