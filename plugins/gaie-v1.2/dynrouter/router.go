// Package dynrouter is the Dynamo KV router as the plugins of Dynamo's
// v1.0/v1.1 lines (GAIE v1.2.1) use it: a small interface over the
// "routers" generation of Dynamo's C API as Dynamo v1.0 and v1.1 shipped it
// (create_routers, a 5- or 7-field CRoutingResult, the 6-parameter
// add_request), so the plugins can be tested with a Go fake
// and linked to the real library (or its test double) through routerffi.
package dynrouter

import "context"

// Decision is one routing answer of the router. Dynamo v1.0's routing
// result carries no data-parallel rank (both ranks are then 0); v1.1's
// carries the rank of each worker, UnsetDPRank for a prefill rank the
// router left to the worker.
type Decision struct {
	PrefillWorkerID uint64
	DecodeWorkerID  uint64
	PrefillDPRank   uint32
	DecodeDPRank    uint32
	// TokenIDs is the tokenised prompt; the decode booking is registered
	// with it so the router can account the worker's KV load.
	TokenIDs []uint32
}

// UnsetDPRank is the C API's data-parallel rank meaning "not chosen".
const UnsetDPRank = ^uint32(0)

// Router is the routers C API generation of Dynamo v1.0. request is the
// OpenAI request as JSON (RequestJSON); pods the candidate endpoints as
// JSON (PodsJSON), nil for no filter. Implementations are safe for
// concurrent use.
type Router interface {
	// RoutePrefill picks a prefill worker (advisory: no load is held).
	RoutePrefill(ctx context.Context, request, pods []byte) (Decision, error)
	// RouteDecode picks a decode worker; disaggregated says whether the
	// request has a prefill worker (the router then ignores KV overlap).
	RouteDecode(ctx context.Context, request, pods []byte, disaggregated bool) (Decision, error)
	// AddRequest registers a routed request with its worker's load.
	AddRequest(id string, tokenIDs []uint32, workerID uint64, dpRank uint32) error
	// MarkPrefillComplete records the first token: the prefill load ends.
	MarkPrefillComplete(id string) error
	// FreeRequest ends a request; unknown ids are not an error.
	FreeRequest(id string) error
	// Close releases the router; calls after Close fail.
	Close() error
}

// Open creates the router named by cfg (routerffi.Open in the EPP).
type Open func(Config) (Router, error)
