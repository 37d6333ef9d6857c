package disagg

import (
	"strconv"

	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// DefaultWorkerIDLabel is the pod label that names the Dynamo worker
// instance a pod runs, when pods are workers rather than frontends.
const DefaultWorkerIDLabel = "dynamo-worker-instance-id"

// scoreWorker gives 1 to the endpoints whose label says they run worker
// and 0 to the rest. When none does (the usual case: the pool's pods are
// Dynamo frontends, any of which forwards to the chosen worker) every
// endpoint scores 1 and the decision travels in the headers only.
func scoreWorker(endpoints []fwksched.Endpoint, label string, worker uint64) map[fwksched.Endpoint]float64 {
	scores := make(map[fwksched.Endpoint]float64, len(endpoints))
	want := strconv.FormatUint(worker, 10)
	matched := false
	for _, ep := range endpoints {
		scores[ep] = 0
		if label == "" || ep == nil || ep.GetMetadata() == nil {
			continue
		}
		if ep.GetMetadata().Labels[label] == want {
			scores[ep] = 1
			matched = true
		}
	}
	if !matched {
		for ep := range scores {
			scores[ep] = 1
		}
	}
	return scores
}

// uniformScores gives every endpoint the same score: 0 is the prefill
// scorer's neutral answer when it falls back, 1 the decode scorer's (both
// as in Dynamo's EPP).
func uniformScores(endpoints []fwksched.Endpoint, score float64) map[fwksched.Endpoint]float64 {
	scores := make(map[fwksched.Endpoint]float64, len(endpoints))
	for _, ep := range endpoints {
		scores[ep] = score
	}
	return scores
}
