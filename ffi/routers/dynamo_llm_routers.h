/*
 * The "routers" generation of Dynamo's C API (library dynamo_llm_capi,
 * Dynamo v1.3/v1.4 line) as this binding calls it: exactly the prototypes
 * and types the Go code uses. The cgo preamble includes this file and
 * declares nothing itself, so a test can check it against the header
 * generated from the Rust crate.
 *
 * Functions that only some libraries of this generation have are declared
 * in feature_<tag>.h, compiled only with the Go build tag <tag>; the build
 * turns a tag on when the linked library defines all of that header's
 * functions.
 */
#ifndef EPP_BUILD_DYNAMO_LLM_ROUTERS_H
#define EPP_BUILD_DYNAMO_LLM_ROUTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A #[repr(u32)] Rust enum: 0 is Ok, anything else a failure. */
typedef uint32_t QueryRouterResult;

/* Opaque; owned by the library between create_routers and destroy. */
typedef struct RouterHandles RouterHandles;

/* Buffers are owned by the library until free_routing_result. */
typedef struct CRoutingResult {
  bool is_disaggregated;
  uint64_t prefill_worker_id;
  uint64_t decode_worker_id;
  uint32_t prefill_dp_rank;
  uint32_t decode_dp_rank;
  uint32_t *token_ids;
  size_t token_count;
  uint8_t *cache_namespace;
  size_t cache_namespace_len;
} CRoutingResult;

#ifdef __cplusplus
extern "C" {
#endif

QueryRouterResult create_routers(const char *namespace_, const char *component, bool enforce_disagg,
                                 RouterHandles **out_handle);

QueryRouterResult route_prefill_request(RouterHandles *handle, const char *request_json,
                                        const char *pods_json, CRoutingResult *out_result);

QueryRouterResult route_decode_request(RouterHandles *handle, const char *request_json, const char *pods_json,
                                       bool is_disaggregated, CRoutingResult *out_result);

void free_routing_result(CRoutingResult *result);

QueryRouterResult add_request_with_cache_namespace(RouterHandles *handle, const char *request_id,
                                                   const uint32_t *token_ids, size_t token_count,
                                                   uint64_t worker_id, uint32_t dp_rank,
                                                   const uint8_t *cache_namespace, size_t cache_namespace_len);

QueryRouterResult mark_prefill_complete(RouterHandles *handle, const char *request_id);

QueryRouterResult free_request(RouterHandles *handle, const char *request_id);

void destroy(RouterHandles *handle);

#ifdef __cplusplus
}
#endif

#endif
