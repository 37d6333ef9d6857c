// Package pipelineffi opens Dynamo v0.9's worker-selection pipeline through
// the cgo binding of the C API's "pipeline" generation with v0.8.0's
// signatures (ffi/pipeline08), which Dynamo v0.9 keeps unchanged. It is the
// only package of the v0.9 plugins that links the library.
package pipelineffi

import (
	"context"
	"fmt"

	"github.com/epp-build/epp-build/ffi/pipeline08"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/kvscorer"
)

// Router adapts *pipeline08.Router to kvscorer.Router.
type Router struct {
	r *pipeline08.Router
}

var _ kvscorer.Router = (*Router)(nil)

// Open initialises the Dynamo runtime (once per process) and creates the
// pipeline cfg names.
func Open(cfg kvscorer.Config) (kvscorer.Router, error) {
	r, err := pipeline08.Open(pipeline08.Config{
		Namespace: cfg.Namespace, Component: cfg.Component, Model: cfg.Model,
		KVBlockSize: cfg.KVBlockSize, UseKVRouting: cfg.UseKVRouting, BusyThreshold: cfg.BusyThreshold,
		OverlapScoreWeight: cfg.OverlapScoreWeight, RouterTemperature: cfg.RouterTemperature,
		UseKVEvents: cfg.UseKVEvents, RouterReplicaSync: cfg.RouterReplicaSync, EnforceDisagg: cfg.EnforceDisagg,
	})
	if err != nil {
		return nil, fmt.Errorf("open dynamo worker selection pipeline: %w", err)
	}
	return &Router{r: r}, nil
}

func (a *Router) Select(ctx context.Context, request []byte) (kvscorer.Selection, error) {
	sel, err := a.r.Select(ctx, request)
	return kvscorer.Selection{DecodeWorkerID: sel.DecodeWorkerID, PrefillWorkerID: sel.PrefillWorkerID, TokenIDs: sel.TokenIDs}, err
}

func (a *Router) AddRequest(id string, tokenIDs []uint32, workerID uint64, dpRank uint32) error {
	return a.r.AddRequest(id, tokenIDs, workerID, dpRank)
}

func (a *Router) MarkPrefillComplete(id string) error { return a.r.MarkPrefillComplete(id) }
func (a *Router) FreeRequest(id string) error         { return a.r.FreeRequest(id) }
func (a *Router) Close() error                        { return a.r.Close() }
