package kvscorer

import "context"

// Selection is one routing decision of the Dynamo router.
type Selection struct {
	WorkerID int64
	TokenIDs []uint32
	// AnnotatedRequest is the request JSON as the router annotated it; the
	// scorer does not need it (BBR rewrites the real body from the hints).
	AnnotatedRequest []byte
}

// Router is the Dynamo worker-selection pipeline as the scorer uses it. The
// cgo binding (sibling package pipelinerouter) implements it for the EPP;
// tests use Go fakes. Implementations must be safe for concurrent use, and
// Close must wait for calls in flight.
type Router interface {
	Select(ctx context.Context, requestJSON []byte) (Selection, error)
	Close() error
}

// Opener opens a Router for a resolved configuration.
type Opener func(Config) (Router, error)
