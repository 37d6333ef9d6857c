package kvscorer

import (
	"context"
	"strconv"
	"sync/atomic"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	rc "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"
)

// Type is the registry key, Dynamo's.
const Type = "kv-aware-scorer"

// Request headers the scorer sets for Dynamo v0.9's frontend, which reads
// the two instance ids as decimal u64.
const (
	WorkerIDHeader        = "x-worker-instance-id"
	PrefillWorkerIDHeader = "x-prefill-instance-id"
	RoutingModeHeader     = "x-dynamo-routing-mode"
	// EnableLocalUpdatesHeader "false" tells the frontend's router that the
	// EPP keeps the bookkeeping.
	EnableLocalUpdatesHeader = "x-enable-local-updates"
)

// Values of RoutingModeHeader.
const (
	ModeAggregated    = "aggregated"
	ModeDisaggregated = "disaggregated"
)

var routingHeaders = []string{WorkerIDHeader, PrefillWorkerIDHeader, RoutingModeHeader, EnableLocalUpdatesHeader}

const (
	routedKey = plugins.StateKey("dynamo-kv-routed")
	bookedKey = plugins.StateKey("dynamo-kv-booked")
)

type routed struct {
	worker uint64
	tokens []uint32
}

func (r *routed) Clone() plugins.StateData {
	return &routed{worker: r.worker, tokens: append([]uint32(nil), r.tokens...)}
}

type booked struct{ marked atomic.Bool }

func (b *booked) Clone() plugins.StateData {
	c := &booked{}
	c.marked.Store(b.marked.Load())
	return c
}

// Scorer is Dynamo v0.9's kv-aware-scorer. Every candidate scores 1: the
// pipeline's choice reaches the frontend through the headers.
type Scorer struct {
	name   plugins.TypedName
	router Router
	model  string
	state  *plugins.PluginState
}

var (
	_ framework.Scorer     = (*Scorer)(nil)
	_ rc.PreRequest        = (*Scorer)(nil)
	_ rc.ResponseStreaming = (*Scorer)(nil)
	_ rc.ResponseComplete  = (*Scorer)(nil)
)

// New names a scorer over router; model is the "model" of requests that
// name none. Per-request state is dropped by GAIE's plugin state when ctx
// ends or a request is left unseen for five minutes.
func New(ctx context.Context, name string, router Router, model string) *Scorer {
	return &Scorer{name: plugins.TypedName{Type: Type, Name: name}, router: router, model: model, state: plugins.NewPluginState(ctx)}
}

func (s *Scorer) TypedName() plugins.TypedName { return s.name }

// Score asks the pipeline for the workers. A client's own routing headers
// never survive: they are removed first, and set again only from the
// pipeline's answer.
func (s *Scorer) Score(ctx context.Context, _ *schedtypes.CycleState, req *schedtypes.LLMRequest, pods []schedtypes.Pod) map[schedtypes.Pod]float64 {
	out := make(map[schedtypes.Pod]float64, len(pods))
	for _, p := range pods {
		out[p] = 1
	}
	if req == nil {
		return out
	}
	for _, h := range routingHeaders {
		delete(req.Headers, h)
	}
	logger := log.FromContext(ctx)
	sel, err := s.selectWorkers(ctx, req)
	if err != nil {
		logger.V(logutil.DEFAULT).Error(err, "kv-aware-scorer: worker selection failed, proceeding without a worker", "requestID", req.RequestId)
		return out
	}
	if sel.DecodeWorkerID < 0 {
		logger.V(logutil.DEFAULT).Info("kv-aware-scorer: the pipeline named no decode worker", "requestID", req.RequestId)
		return out
	}
	if req.Headers == nil {
		req.Headers = map[string]string{}
	}
	worker := uint64(sel.DecodeWorkerID)
	req.Headers[WorkerIDHeader] = strconv.FormatUint(worker, 10)
	req.Headers[EnableLocalUpdatesHeader] = "false"
	req.Headers[RoutingModeHeader] = ModeAggregated
	if sel.PrefillWorkerID >= 0 && sel.PrefillWorkerID != sel.DecodeWorkerID {
		req.Headers[RoutingModeHeader] = ModeDisaggregated
		req.Headers[PrefillWorkerIDHeader] = strconv.FormatInt(sel.PrefillWorkerID, 10)
	}
	if req.RequestId != "" {
		s.state.Write(req.RequestId, routedKey, &routed{worker: worker, tokens: sel.TokenIDs})
	}
	logger.V(logutil.VERBOSE).Info("kv-aware-scorer: workers selected", "requestID", req.RequestId,
		"workerID", sel.DecodeWorkerID, "prefillWorkerID", sel.PrefillWorkerID, "tokens", len(sel.TokenIDs))
	return out
}

func (s *Scorer) selectWorkers(ctx context.Context, req *schedtypes.LLMRequest) (Selection, error) {
	body, err := RequestJSON(req, s.model)
	if err != nil {
		return Selection{}, err
	}
	return s.router.Select(ctx, body)
}

// PreRequest registers the routed request with the router (data-parallel
// rank 0, as Dynamo v0.9 does).
func (s *Scorer) PreRequest(ctx context.Context, req *schedtypes.LLMRequest, _ *schedtypes.SchedulingResult) {
	if req == nil || req.RequestId == "" {
		return
	}
	r, err := plugins.ReadPluginStateKey[*routed](s.state, req.RequestId, routedKey)
	s.state.Delete(req.RequestId)
	if err != nil {
		return
	}
	if err := s.router.AddRequest(req.RequestId, r.tokens, r.worker, 0); err != nil {
		log.FromContext(ctx).V(logutil.DEFAULT).Error(err, "kv-aware-scorer: add_request failed", "requestID", req.RequestId)
		return
	}
	s.state.Write(req.RequestId, bookedKey, &booked{})
}

// ResponseStreaming marks prefill complete once, on the first chunk of a
// registered request.
func (s *Scorer) ResponseStreaming(ctx context.Context, req *schedtypes.LLMRequest, _ *rc.Response, _ *backend.Pod) {
	if req == nil || req.RequestId == "" {
		return
	}
	b, err := plugins.ReadPluginStateKey[*booked](s.state, req.RequestId, bookedKey)
	if err != nil || !b.marked.CompareAndSwap(false, true) {
		return
	}
	if err := s.router.MarkPrefillComplete(req.RequestId); err != nil {
		log.FromContext(ctx).V(logutil.DEFAULT).Error(err, "kv-aware-scorer: mark_prefill_complete failed", "requestID", req.RequestId)
	}
}

// ResponseComplete frees the request at the router, also when this
// scorer's state was already dropped (the library answers OK for ids it
// does not know).
func (s *Scorer) ResponseComplete(ctx context.Context, req *schedtypes.LLMRequest, _ *rc.Response, _ *backend.Pod) {
	if req == nil || req.RequestId == "" {
		return
	}
	s.state.Delete(req.RequestId)
	if err := s.router.FreeRequest(req.RequestId); err != nil {
		log.FromContext(ctx).V(logutil.DEFAULT).Error(err, "kv-aware-scorer: free_request failed", "requestID", req.RequestId)
	}
}
