// Package routerffi opens the Dynamo KV router through the cgo binding of
// the C API's "routers" generation (ffi/routers). It is the only package of
// the plugins that links the library; everything else sees kvrouter.Router.
package routerffi

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/epp-build/epp-build/ffi/routers"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// Router adapts *routers.Routers to kvrouter.Router: the binding's Result
// becomes a kvrouter.Decision; every other call passes straight through.
type Router struct {
	r *routers.Routers
}

var _ kvrouter.Router = (*Router)(nil)

// Open creates the router pair named by cfg and logs which variant of
// the C API this build binds (see Variant).
func Open(cfg kvrouter.Config) (kvrouter.Router, error) {
	// enforce_disagg is false, as Dynamo's EPP passes it (the library
	// ignores the flag).
	r, err := routers.Open(cfg.Namespace, cfg.Component, false)
	if err != nil {
		return nil, fmt.Errorf("open dynamo kv router: %w", err)
	}
	log.Log.WithName("dynamo-kv-router").Info("Dynamo C API variant", "variant", Variant(),
		"prefillReservation", routers.PrefillReservation, "prefillReservationBegin", routers.PrefillReservationBegin)
	return &Router{r: r}, nil
}

// Variant names the variant of the routers C API this build binds: the
// build tags the build chose from the linked library's header, e.g.
// "routers_result_9,routers_add_8,routers_reservation_none".
func Variant() string { return routers.Bound().String() }

func decision(res routers.Result) kvrouter.Decision {
	return kvrouter.Decision{
		Disaggregated:   res.Disaggregated,
		PrefillWorkerID: res.PrefillWorkerID,
		DecodeWorkerID:  res.DecodeWorkerID,
		PrefillDPRank:   res.PrefillDPRank,
		DecodeDPRank:    res.DecodeDPRank,
		TokenIDs:        res.TokenIDs,
		CacheNamespace:  res.CacheNamespace,
	}
}

func (a *Router) RoutePrefill(ctx context.Context, request, pods []byte) (kvrouter.Decision, error) {
	res, err := a.r.RoutePrefill(ctx, request, pods)
	return decision(res), err
}

func (a *Router) RouteDecode(ctx context.Context, request, pods []byte, disaggregated bool) (kvrouter.Decision, error) {
	res, err := a.r.RouteDecode(ctx, request, pods, disaggregated)
	return decision(res), err
}

func (a *Router) AddRequest(id string, tokenIDs []uint32, workerID uint64, dpRank uint32, cacheNamespace string) error {
	return a.r.AddRequest(id, tokenIDs, workerID, dpRank, cacheNamespace)
}

func (a *Router) MarkPrefillComplete(id string) error { return a.r.MarkPrefillComplete(id) }
func (a *Router) FreeRequest(id string) error         { return a.r.FreeRequest(id) }
func (a *Router) Close() error                        { return a.r.Close() }
