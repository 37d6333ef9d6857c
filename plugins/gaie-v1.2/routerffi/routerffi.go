// Package routerffi opens the Dynamo KV router through the cgo binding of
// the C API's "routers" generation (ffi/routers). It is the only package
// of these plugins that links the library; the rest sees dynrouter.Router.
package routerffi

import (
	"context"
	"fmt"

	"github.com/epp-build/epp-build/ffi/routers"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

// Router adapts *routers.Routers to dynrouter.Router.
type Router struct {
	r *routers.Routers
}

var _ dynrouter.Router = (*Router)(nil)

// Open creates the router pair named by cfg. The third argument of
// create_routers is decode_fallback in Dynamo v1.0's C API, enforce_disagg
// in v1.1's.
func Open(cfg dynrouter.Config) (dynrouter.Router, error) {
	r, err := routers.Open(cfg.Namespace, cfg.Component, cfg.RoutersFlag)
	if err != nil {
		return nil, fmt.Errorf("open dynamo kv router: %w", err)
	}
	return &Router{r: r}, nil
}

func decision(res routers.Result) dynrouter.Decision {
	return dynrouter.Decision{
		PrefillWorkerID: res.PrefillWorkerID, DecodeWorkerID: res.DecodeWorkerID,
		PrefillDPRank: res.PrefillDPRank, DecodeDPRank: res.DecodeDPRank,
		TokenIDs: res.TokenIDs,
	}
}

func (a *Router) RoutePrefill(ctx context.Context, request, pods []byte) (dynrouter.Decision, error) {
	res, err := a.r.RoutePrefill(ctx, request, pods)
	return decision(res), err
}

func (a *Router) RouteDecode(ctx context.Context, request, pods []byte, disaggregated bool) (dynrouter.Decision, error) {
	res, err := a.r.RouteDecode(ctx, request, pods, disaggregated)
	return decision(res), err
}

// AddRequest registers without a cache namespace: Dynamo v1.0's
// add_request has none.
func (a *Router) AddRequest(id string, tokenIDs []uint32, workerID uint64, dpRank uint32) error {
	return a.r.AddRequest(id, tokenIDs, workerID, dpRank, "")
}

func (a *Router) MarkPrefillComplete(id string) error { return a.r.MarkPrefillComplete(id) }
func (a *Router) FreeRequest(id string) error         { return a.r.FreeRequest(id) }
func (a *Router) Close() error                        { return a.r.Close() }
