package kvscorer

import "context"

// Selection is one routing decision of Dynamo v0.8.0's router.
type Selection struct {
	DecodeWorkerID int64
	// PrefillWorkerID is negative unless the request is disaggregated.
	PrefillWorkerID int64
	TokenIDs        []uint32
}

// Router is the worker-selection pipeline with its bookkeeping, as the
// scorer and the cleanup plugin use it. The cgo binding (pipelinerouter)
// implements it for the EPP; tests use fakes. Implementations must be safe
// for concurrent use, and Close must wait for calls in flight.
type Router interface {
	Select(ctx context.Context, requestJSON []byte) (Selection, error)
	AddRequest(requestID string, tokens []uint32, workerID uint64, dpRank uint32) error
	FreeRequest(requestID string) error
	Close() error
}

// Opener opens a Router for a resolved configuration.
type Opener func(Config) (Router, error)
