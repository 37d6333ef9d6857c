/*
 * Variant routers_reservation none (Go build tag routers_reservation_none,
 * the default): no prefill reservation functions, as in every Dynamo
 * release; prefill is routed with route_prefill_request (advisory). It
 * declares nothing, so every library has it: the build picks it when no
 * other reservation variant matches the library (a reservation function
 * the library declares with a prototype no variant knows is refused).
 */
#ifndef EPP_BUILD_ROUTERS_RESERVATION_NONE_H
#define EPP_BUILD_ROUTERS_RESERVATION_NONE_H

#include "dynamo_llm_routers.h"

#endif
