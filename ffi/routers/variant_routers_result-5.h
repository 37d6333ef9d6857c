/*
 * Variant routers_result 5 (Go build tag routers_result_5): CRoutingResult
 * with five fields, as Dynamo v1.0.x has it (no data-parallel ranks, no
 * cache namespace: the binding reports UnsetDPRank and "" for them).
 */
#ifndef EPP_BUILD_ROUTERS_RESULT_5_H
#define EPP_BUILD_ROUTERS_RESULT_5_H

#include "dynamo_llm_routers.h"

struct CRoutingResult {
  bool is_disaggregated;
  uint64_t prefill_worker_id;
  uint64_t decode_worker_id;
  uint32_t *token_ids;
  size_t token_count;
};

#endif
