package disagg

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

// PrefillScorerType is the registry key, Dynamo's.
const PrefillScorerType = "dyn-prefill-scorer"

// PrefillScorer asks the router for the prefill worker of a disaggregated
// request and names it in x-prefill-instance-id; every candidate scores
// 1 (the router's choice is the one that counts, through the header). A
// request that is not disaggregated scores 0 everywhere and gets no
// prefill header.
type PrefillScorer struct {
	name   plugins.TypedName
	router dynrouter.Router
}

var _ framework.Scorer = (*PrefillScorer)(nil)

// NewPrefillScorer names a prefill scorer over router.
func NewPrefillScorer(name string, router dynrouter.Router) *PrefillScorer {
	return &PrefillScorer{name: plugins.TypedName{Type: PrefillScorerType, Name: name}, router: router}
}

func (s *PrefillScorer) TypedName() plugins.TypedName { return s.name }

// Score routes prefill. A client's own x-prefill-instance-id never
// survives: only the router picks the prefill worker. When routing fails
// the request goes on aggregated (the decode scorer reads that from the
// cycle state), rather than disaggregated without a prefill worker.
func (s *PrefillScorer) Score(ctx context.Context, cs *schedtypes.CycleState, req *schedtypes.LLMRequest, pods []schedtypes.Pod) map[schedtypes.Pod]float64 {
	if req != nil {
		delete(req.Headers, PrefillWorkerIDHeader)
		if sendsDPRanks {
			delete(req.Headers, PrefillDPRankHeader)
		}
	}
	if !PrefillEnabled(cs) || req == nil {
		return uniform(pods, 0)
	}
	logger := log.FromContext(ctx)
	d, err := s.route(ctx, req, pods)
	if err != nil {
		logger.V(logutil.DEFAULT).Error(err, "dyn-prefill-scorer: prefill routing failed, routing the request aggregated", "requestID", req.RequestId)
		SetPrefillEnabled(cs, false)
		return uniform(pods, 0)
	}
	req.Headers = headers(req.Headers)
	req.Headers[PrefillWorkerIDHeader] = workerID(d.PrefillWorkerID)
	// An unset rank is left to the prefill worker, as Dynamo v1.1 leaves it.
	if sendsDPRanks && d.PrefillDPRank != dynrouter.UnsetDPRank {
		req.Headers[PrefillDPRankHeader] = dpRank(d.PrefillDPRank)
	}
	logger.V(logutil.VERBOSE).Info("dyn-prefill-scorer: prefill worker selected", "requestID", req.RequestId,
		"prefillWorkerID", d.PrefillWorkerID, "tokens", len(d.TokenIDs), "candidates", len(pods))
	return uniform(pods, 1)
}

func (s *PrefillScorer) route(ctx context.Context, req *schedtypes.LLMRequest, pods []schedtypes.Pod) (dynrouter.Decision, error) {
	body, err := dynrouter.RequestJSON(req)
	if err != nil {
		return dynrouter.Decision{}, err
	}
	podsJSON, err := dynrouter.PodsJSON(pods)
	if err != nil {
		return dynrouter.Decision{}, err
	}
	return s.router.RoutePrefill(ctx, body, podsJSON)
}
