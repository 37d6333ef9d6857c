/*
 * Test-only hooks exported by the C API test double (testdata/capi-double).
 * The real Dynamo C API has none of these symbols: only tests link this.
 */
#ifndef EPP_BUILD_CAPI_DOUBLE_HOOKS_H
#define EPP_BUILD_CAPI_DOUBLE_HOOKS_H

#include <stdint.h>

typedef struct RouterHandles RouterHandles;

#ifdef __cplusplus
extern "C" {
#endif

int64_t dynamo_double_outstanding_results(void);
int64_t dynamo_double_live_pipelines(void);
int64_t dynamo_double_violations(void);
uint32_t dynamo_double_init_kv_block_size(void);
int64_t dynamo_double_outstanding_bookings(RouterHandles *handle);
int64_t dynamo_double_outstanding_requests(RouterHandles *handle);
int64_t dynamo_double_outstanding_routing_results(void);
int64_t dynamo_double_ignored_calls(void);
int64_t dynamo_double_router_runtimes(void);

/* The real init, for tests that prove the double is as strict as Dynamo. */
uint32_t dynamo_llm_init(const char *namespace_c_str, const char *component_c_str, uint32_t kv_block_size);

#ifdef __cplusplus
}
#endif

#endif
