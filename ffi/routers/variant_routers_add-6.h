/*
 * Variant routers_add 6 (Go build tag routers_add_6): requests are
 * registered with add_request, which has no cache namespace; the binding
 * drops the namespace it is given.
 */
#ifndef EPP_BUILD_ROUTERS_ADD_6_H
#define EPP_BUILD_ROUTERS_ADD_6_H

#include "dynamo_llm_routers.h"

#ifdef __cplusplus
extern "C" {
#endif

QueryRouterResult add_request(RouterHandles *handle, const char *request_id, const uint32_t *token_ids,
                              size_t token_count, uint64_t worker_id, uint32_t dp_rank);

#ifdef __cplusplus
}
#endif

#endif
