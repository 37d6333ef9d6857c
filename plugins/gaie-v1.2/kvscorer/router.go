// Package kvscorer is Dynamo v0.9's kv-aware-scorer on GAIE v1.2.1: one
// scorer that asks Dynamo's worker-selection pipeline (the "pipeline" C API
// generation with v0.8.0's signatures, which v0.9 keeps) for the decode
// and prefill workers, names them in the headers Dynamo's frontend reads,
// and keeps the router's bookkeeping of the request (add_request before it
// is sent, mark_prefill_complete on its first streamed chunk,
// free_request at the end).
package kvscorer

import "context"

// Selection is one routing answer of the pipeline.
type Selection struct {
	DecodeWorkerID int64
	// PrefillWorkerID is negative when the request is not disaggregated.
	PrefillWorkerID int64
	// TokenIDs is the tokenised prompt the request is registered with.
	TokenIDs []uint32
}

// Router is Dynamo v0.9's worker-selection pipeline. Implementations are
// safe for concurrent use.
type Router interface {
	// Select picks the workers for an OpenAI request (RequestJSON).
	Select(ctx context.Context, request []byte) (Selection, error)
	// AddRequest registers a routed request with its worker's load.
	AddRequest(id string, tokenIDs []uint32, workerID uint64, dpRank uint32) error
	// MarkPrefillComplete records the first token.
	MarkPrefillComplete(id string) error
	// FreeRequest ends a request.
	FreeRequest(id string) error
	// Close releases the pipeline; calls after Close fail.
	Close() error
}

// Open creates the pipeline named by cfg (pipelineffi.Open in the EPP).
type Open func(Config) (Router, error)
