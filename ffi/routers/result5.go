//go:build routers_result_5

package routers

/*
#cgo CFLAGS: -DEPP_ROUTERS_RESULT_5
#include "dynamo_llm_routers.h"
*/
import "C"

const resultVariant = "5"

// copyResult copies the five fields; the library has no data-parallel
// ranks and no cache namespace, so they read as unset.
func copyResult(out *C.CRoutingResult) Result {
	return Result{
		Disaggregated:   bool(out.is_disaggregated),
		PrefillWorkerID: uint64(out.prefill_worker_id),
		DecodeWorkerID:  uint64(out.decode_worker_id),
		PrefillDPRank:   UnsetDPRank,
		DecodeDPRank:    UnsetDPRank,
		TokenIDs:        copyTokens(out.token_ids, out.token_count),
	}
}
