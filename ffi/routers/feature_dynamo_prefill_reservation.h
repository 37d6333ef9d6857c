/*
 * Optional part of the "routers" generation: prefill reservations
 * (bookings), compiled only with the Go build tag dynamo_prefill_reservation.
 * No Dynamo release defines these functions: they come with the backport
 * of the reservation fix (Dynamo #12909/#13042) carried as a patch series
 * on the C API checkout. Their names follow the Go wrappers that call them
 * (see the C API test double's README).
 */
#ifndef EPP_BUILD_DYNAMO_PREFILL_RESERVATION_H
#define EPP_BUILD_DYNAMO_PREFILL_RESERVATION_H

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
