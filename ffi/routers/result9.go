//go:build routers_result_9 || !(routers_result_5 || routers_result_7)

package routers

/*
#include "dynamo_llm_routers.h"
*/
import "C"

import "unsafe"

const resultVariant = "9"

// copyResult copies all nine fields.
func copyResult(out *C.CRoutingResult) Result {
	res := Result{
		Disaggregated:   bool(out.is_disaggregated),
		PrefillWorkerID: uint64(out.prefill_worker_id),
		DecodeWorkerID:  uint64(out.decode_worker_id),
		PrefillDPRank:   uint32(out.prefill_dp_rank),
		DecodeDPRank:    uint32(out.decode_dp_rank),
		TokenIDs:        copyTokens(out.token_ids, out.token_count),
	}
	if out.cache_namespace != nil && out.cache_namespace_len > 0 {
		res.CacheNamespace = C.GoStringN((*C.char)(unsafe.Pointer(out.cache_namespace)), C.int(out.cache_namespace_len))
	}
	return res
}
