/*
 * Variant routers_reservation timeout (Go build tag
 * routers_reservation_timeout): as variant 2, the route call taking a sixth
 * parameter, timeout_ms (0: no limit), which the binding takes from the
 * context deadline.
 */
#ifndef EPP_BUILD_ROUTERS_RESERVATION_TIMEOUT_H
#define EPP_BUILD_ROUTERS_RESERVATION_TIMEOUT_H

#include "dynamo_llm_routers.h"

#ifdef __cplusplus
extern "C" {
#endif

QueryRouterResult route_prefill_request_with_reservation(RouterHandles *handle, const char *booking_id,
                                                         const char *request_json, const char *pods_json,
                                                         CRoutingResult *out_result, uint64_t timeout_ms);

QueryRouterResult cancel_prefill_reservation(RouterHandles *handle, const char *booking_id);

#ifdef __cplusplus
}
#endif

#endif
