/*
 * Variant routers_reservation 4 (Go build tag routers_reservation_4): four
 * reservation calls. begin opens a booking, the route call reserves for it,
 * cancel wakes a pending reservation, release drops a booking in any state.
 */
#ifndef EPP_BUILD_ROUTERS_RESERVATION_4_H
#define EPP_BUILD_ROUTERS_RESERVATION_4_H

#include "dynamo_llm_routers.h"

#ifdef __cplusplus
extern "C" {
#endif

QueryRouterResult begin_prefill_reservation(RouterHandles *handle, const char *booking_id);

QueryRouterResult route_prefill_request_with_reservation(RouterHandles *handle, const char *booking_id,
                                                         const char *request_json, const char *pods_json,
                                                         CRoutingResult *out_result);

QueryRouterResult cancel_prefill_reservation(RouterHandles *handle, const char *booking_id);

QueryRouterResult release_prefill_reservation(RouterHandles *handle, const char *booking_id);

#ifdef __cplusplus
}
#endif

#endif
