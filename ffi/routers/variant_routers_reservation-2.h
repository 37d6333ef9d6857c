/*
 * Variant routers_reservation 2 (Go build tag routers_reservation_2): two
 * reservation calls. The route call opens and reserves the booking itself
 * (no begin); cancel wakes a pending reservation; mark_prefill_complete or
 * free_request releases it (no release call).
 */
#ifndef EPP_BUILD_ROUTERS_RESERVATION_2_H
#define EPP_BUILD_ROUTERS_RESERVATION_2_H

#include "dynamo_llm_routers.h"

#ifdef __cplusplus
extern "C" {
#endif

QueryRouterResult route_prefill_request_with_reservation(RouterHandles *handle, const char *booking_id,
                                                         const char *request_json, const char *pods_json,
                                                         CRoutingResult *out_result);

QueryRouterResult cancel_prefill_reservation(RouterHandles *handle, const char *booking_id);

#ifdef __cplusplus
}
#endif

#endif
