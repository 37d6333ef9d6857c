package disagg

import "strconv"

// Request headers the scorers set for Dynamo v1.0's frontend, which reads
// the two instance ids as decimal u64 (nvext.backend_instance_id and
// decode_worker_id; prefill_worker_id). The routing mode is informational.
const (
	WorkerIDHeader        = "x-worker-instance-id"
	PrefillWorkerIDHeader = "x-prefill-instance-id"
	RoutingModeHeader     = "x-dynamo-routing-mode"
	// The data-parallel rank headers of Dynamo v1.1's frontend (u32), sent
	// only by a line whose sendsDPRanks is true.
	DPRankHeader        = "x-dp-rank"
	PrefillDPRankHeader = "x-prefill-dp-rank"
)

// Values of RoutingModeHeader.
const (
	ModeAggregated    = "aggregated"
	ModeDisaggregated = "disaggregated"
)

func headers(req map[string]string) map[string]string {
	if req == nil {
		return map[string]string{}
	}
	return req
}

func workerID(id uint64) string { return strconv.FormatUint(id, 10) }

func dpRank(rank uint32) string { return strconv.FormatUint(uint64(rank), 10) }
