/*
 * Variant routers_result 7 (Go build tag routers_result_7): CRoutingResult
 * with the data-parallel ranks and no cache namespace (the binding reports
 * "" for it).
 */
#ifndef EPP_BUILD_ROUTERS_RESULT_7_H
#define EPP_BUILD_ROUTERS_RESULT_7_H

#include "dynamo_llm_routers.h"

struct CRoutingResult {
  bool is_disaggregated;
  uint64_t prefill_worker_id;
  uint64_t decode_worker_id;
  uint32_t prefill_dp_rank;
  uint32_t decode_dp_rank;
  uint32_t *token_ids;
  size_t token_count;
};

#endif
