package disagg

import (
	"context"
	"sync/atomic"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	rc "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

// DecodeScorerType is the registry key, Dynamo's.
const DecodeScorerType = "dyn-decode-scorer"

// Plugin state keys, per request id.
const (
	routedKey = plugins.StateKey("dynamo-decode-routed")
	bookedKey = plugins.StateKey("dynamo-decode-booked")
)

// routed is what Score hands to PreRequest: the worker and the tokens to
// register the request with.
type routed struct {
	worker uint64
	rank   uint32
	tokens []uint32
}

func (r *routed) Clone() plugins.StateData {
	return &routed{worker: r.worker, rank: r.rank, tokens: append([]uint32(nil), r.tokens...)}
}

// booked marks a request registered with the router; marked says its
// first token was recorded.
type booked struct{ marked atomic.Bool }

func (b *booked) Clone() plugins.StateData {
	c := &booked{}
	c.marked.Store(b.marked.Load())
	return c
}

// DecodeScorer asks the router for the decode worker, names it in
// x-worker-instance-id with x-dynamo-routing-mode, and keeps the router's
// bookkeeping of the request: registered before it is sent (PreRequest),
// prefill marked complete on its first streamed chunk, freed when the
// response ends. Every candidate scores 1: the header carries the choice.
type DecodeScorer struct {
	name   plugins.TypedName
	router dynrouter.Router
	state  *plugins.PluginState
}

var (
	_ framework.Scorer     = (*DecodeScorer)(nil)
	_ rc.PreRequest        = (*DecodeScorer)(nil)
	_ rc.ResponseStreaming = (*DecodeScorer)(nil)
	_ rc.ResponseComplete  = (*DecodeScorer)(nil)
)

// NewDecodeScorer names a decode scorer over router; its per-request
// state is dropped by GAIE's plugin state when ctx ends or a request is
// left unseen for five minutes.
func NewDecodeScorer(ctx context.Context, name string, router dynrouter.Router) *DecodeScorer {
	return &DecodeScorer{
		name:   plugins.TypedName{Type: DecodeScorerType, Name: name},
		router: router,
		state:  plugins.NewPluginState(ctx),
	}
}

func (s *DecodeScorer) TypedName() plugins.TypedName { return s.name }

// Score routes decode, disaggregated when the profile handler (and the
// prefill scorer) left the request so. When routing fails, the worker and
// mode headers are removed (a client's own would otherwise route the
// request) and every candidate scores 1, so GAIE's picker chooses.
func (s *DecodeScorer) Score(ctx context.Context, cs *schedtypes.CycleState, req *schedtypes.LLMRequest, pods []schedtypes.Pod) map[schedtypes.Pod]float64 {
	if req == nil {
		return uniform(pods, 1)
	}
	logger := log.FromContext(ctx)
	disaggregated := PrefillEnabled(cs)
	req.Headers = headers(req.Headers)
	delete(req.Headers, WorkerIDHeader)
	delete(req.Headers, RoutingModeHeader)
	if !disaggregated {
		delete(req.Headers, PrefillWorkerIDHeader)
	}
	if sendsDPRanks {
		delete(req.Headers, DPRankHeader)
		if !disaggregated {
			delete(req.Headers, PrefillDPRankHeader)
		}
	}
	d, err := s.route(ctx, req, pods, disaggregated)
	if err != nil {
		logger.V(logutil.DEFAULT).Error(err, "dyn-decode-scorer: decode routing failed", "requestID", req.RequestId)
		return uniform(pods, 1)
	}
	req.Headers[WorkerIDHeader] = workerID(d.DecodeWorkerID)
	var rank uint32 // Dynamo v1.0 registers every request on rank 0
	if sendsDPRanks {
		rank = d.DecodeDPRank
		req.Headers[DPRankHeader] = dpRank(rank)
	}
	req.Headers[RoutingModeHeader] = ModeAggregated
	if disaggregated {
		req.Headers[RoutingModeHeader] = ModeDisaggregated
	}
	if req.RequestId != "" {
		s.state.Write(req.RequestId, routedKey, &routed{worker: d.DecodeWorkerID, rank: rank, tokens: d.TokenIDs})
	}
	logger.V(logutil.VERBOSE).Info("dyn-decode-scorer: decode worker selected", "requestID", req.RequestId,
		"decodeWorkerID", d.DecodeWorkerID, "dpRank", rank, "disaggregated", disaggregated, "tokens", len(d.TokenIDs), "candidates", len(pods))
	return uniform(pods, 1)
}

func (s *DecodeScorer) route(ctx context.Context, req *schedtypes.LLMRequest, pods []schedtypes.Pod, disaggregated bool) (dynrouter.Decision, error) {
	body, err := dynrouter.RequestJSON(req)
	if err != nil {
		return dynrouter.Decision{}, err
	}
	podsJSON, err := dynrouter.PodsJSON(pods)
	if err != nil {
		return dynrouter.Decision{}, err
	}
	return s.router.RouteDecode(ctx, body, podsJSON, disaggregated)
}

// PreRequest registers the routed request with the router on the decode
// worker's data-parallel rank: the routed one where the line sends ranks
// (v1.1), else 0, as Dynamo v1.0's EPP registers it (its routing result
// has no rank).
func (s *DecodeScorer) PreRequest(ctx context.Context, req *schedtypes.LLMRequest, _ *schedtypes.SchedulingResult) {
	if req == nil || req.RequestId == "" {
		return
	}
	r, err := plugins.ReadPluginStateKey[*routed](s.state, req.RequestId, routedKey)
	s.state.Delete(req.RequestId)
	if err != nil {
		return // not routed by this scorer (routing failed, or another profile)
	}
	logger := log.FromContext(ctx)
	if err := s.router.AddRequest(req.RequestId, r.tokens, r.worker, r.rank); err != nil {
		logger.V(logutil.DEFAULT).Error(err, "dyn-decode-scorer: add_request failed", "requestID", req.RequestId)
		return
	}
	s.state.Write(req.RequestId, bookedKey, &booked{})
	logger.V(logutil.VERBOSE).Info("dyn-decode-scorer: request registered", "requestID", req.RequestId, "workerID", r.worker, "dpRank", r.rank)
}

// ResponseStreaming marks prefill complete once, on the first chunk of a
// registered request.
func (s *DecodeScorer) ResponseStreaming(ctx context.Context, req *schedtypes.LLMRequest, _ *rc.Response, _ *backend.Pod) {
	if req == nil || req.RequestId == "" {
		return
	}
	b, err := plugins.ReadPluginStateKey[*booked](s.state, req.RequestId, bookedKey)
	if err != nil || !b.marked.CompareAndSwap(false, true) {
		return
	}
	if err := s.router.MarkPrefillComplete(req.RequestId); err != nil {
		log.FromContext(ctx).V(logutil.DEFAULT).Error(err, "dyn-decode-scorer: mark_prefill_complete failed", "requestID", req.RequestId)
	}
}

// ResponseComplete frees the request at the router. It frees even when
// this scorer's state was already dropped (a response longer than GAIE's
// plugin state keeps an idle request): the router answers Ok for ids it
// does not know, so a request it does know is never left behind.
func (s *DecodeScorer) ResponseComplete(ctx context.Context, req *schedtypes.LLMRequest, _ *rc.Response, _ *backend.Pod) {
	if req == nil || req.RequestId == "" {
		return
	}
	s.state.Delete(req.RequestId)
	if err := s.router.FreeRequest(req.RequestId); err != nil {
		log.FromContext(ctx).V(logutil.DEFAULT).Error(err, "dyn-decode-scorer: free_request failed", "requestID", req.RequestId)
	}
}
