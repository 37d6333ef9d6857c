//go:build routers_result_7

package routers

/*
#cgo CFLAGS: -DEPP_ROUTERS_RESULT_7
#include "dynamo_llm_routers.h"
*/
import "C"

const resultVariant = "7"

// copyResult copies the seven fields; the library has no cache namespace.
func copyResult(out *C.CRoutingResult) Result {
	return Result{
		Disaggregated:   bool(out.is_disaggregated),
		PrefillWorkerID: uint64(out.prefill_worker_id),
		DecodeWorkerID:  uint64(out.decode_worker_id),
		PrefillDPRank:   uint32(out.prefill_dp_rank),
		DecodeDPRank:    uint32(out.decode_dp_rank),
		TokenIDs:        copyTokens(out.token_ids, out.token_count),
	}
}
