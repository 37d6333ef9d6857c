// Package kvrouter is the Dynamo KV router as the EPP plugins use it: a
// small interface over the "routers" generation of Dynamo's C API, so the
// plugins can be tested with a Go fake and linked to the real library (or
// its test double) through package routerffi.
package kvrouter

import (
	"context"
	"errors"
)

// ErrPrefillReservationUnsupported is what the reservation calls return
// when the linked C API has no reservation functions (a Dynamo release):
// callers fall back to the advisory RoutePrefill, as Dynamo's EPP does.
var ErrPrefillReservationUnsupported = errors.New("prefill reservation is not supported by the linked Dynamo C API")

// UnsetDPRank is the data-parallel rank meaning "not set" (the C API's
// u32::MAX sentinel).
const UnsetDPRank = ^uint32(0)

// Decision is one routing answer of the router.
type Decision struct {
	Disaggregated   bool
	PrefillWorkerID uint64
	DecodeWorkerID  uint64
	PrefillDPRank   uint32
	DecodeDPRank    uint32
	// TokenIDs is the tokenised prompt; the decode booking is registered
	// with it so the router can account the worker's KV load.
	TokenIDs []uint32
	// CacheNamespace scopes KV reuse (the request's cache salt); "" for none.
	CacheNamespace string
}

// Router is the routers C API generation. Request bodies are the full JSON
// body the gateway forwarded; pods is the candidate endpoints as JSON
// (PodsJSON), nil for no filter. Implementations are safe for concurrent use.
type Router interface {
	// RoutePrefill picks a prefill worker without holding any load
	// (advisory; the reservation calls below are what the scorers use).
	RoutePrefill(ctx context.Context, request, pods []byte) (Decision, error)
	// RouteDecode picks a decode worker; disaggregated says whether a
	// prefill worker was reserved for the request.
	RouteDecode(ctx context.Context, request, pods []byte, disaggregated bool) (Decision, error)
	// AddRequest registers the decode booking id with its worker's load.
	AddRequest(id string, tokenIDs []uint32, workerID uint64, dpRank uint32, cacheNamespace string) error
	// MarkPrefillComplete records the first token: the prefill load ends.
	MarkPrefillComplete(id string) error
	// FreeRequest ends a registered request and any booking of that id.
	FreeRequest(id string) error

	// The reservation calls return ErrPrefillReservationUnsupported when
	// the library lacks them.

	// BeginPrefillReservation opens a booking (Pending). Optional: a
	// library whose reserve call opens the booking itself has none (see
	// ReservationBegin).
	BeginPrefillReservation(id string) error
	// ReservePrefill routes prefill for a (begun) booking and holds the
	// prefill worker's load. It may wait inside the library;
	// CancelPrefillReservation ends that wait.
	ReservePrefill(ctx context.Context, id string, request, pods []byte) (Decision, error)
	// CancelPrefillReservation cancels a Pending booking; an Active one stays.
	CancelPrefillReservation(id string) error
	// ReleasePrefillReservation drops a booking in any state; idempotent.
	ReleasePrefillReservation(id string) error

	// Close releases the router; calls after Close fail.
	Close() error
}

// ReservationBegin is implemented by a Router that knows whether its
// library has the begin call. Dynamo's own prefill scorer treats begin as
// optional; HooksFor leaves it out when HasPrefillReservationBegin is
// false. A Router without this method is taken to have it.
type ReservationBegin interface {
	HasPrefillReservationBegin() bool
}
