/*
 * Variant routers_result 9 (Go build tag routers_result_9, the default):
 * CRoutingResult with data-parallel ranks and the cache namespace, as
 * Dynamo's 1.4 line has it.
 */
#ifndef EPP_BUILD_ROUTERS_RESULT_9_H
#define EPP_BUILD_ROUTERS_RESULT_9_H

#include "dynamo_llm_routers.h"

struct CRoutingResult {
  bool is_disaggregated;
  uint64_t prefill_worker_id;
  uint64_t decode_worker_id;
  uint32_t prefill_dp_rank;
  uint32_t decode_dp_rank;
  uint32_t *token_ids;
  size_t token_count;
  uint8_t *cache_namespace;
  size_t cache_namespace_len;
};

#endif
