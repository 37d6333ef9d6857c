/*
 * Variant routers_add 8 (Go build tag routers_add_8, the default): requests
 * are registered with add_request_with_cache_namespace. A library with both
 * add functions gets this variant (the build prefers the variant that
 * declares more).
 */
#ifndef EPP_BUILD_ROUTERS_ADD_8_H
#define EPP_BUILD_ROUTERS_ADD_8_H

#include "dynamo_llm_routers.h"

#ifdef __cplusplus
extern "C" {
#endif

QueryRouterResult add_request_with_cache_namespace(RouterHandles *handle, const char *request_id,
                                                   const uint32_t *token_ids, size_t token_count,
                                                   uint64_t worker_id, uint32_t dp_rank,
                                                   const uint8_t *cache_namespace, size_t cache_namespace_len);

#ifdef __cplusplus
}
#endif

#endif
