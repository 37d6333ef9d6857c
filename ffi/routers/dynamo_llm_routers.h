/*
 * The "routers" generation of Dynamo's C API (library dynamo_llm_capi,
 * Dynamo v1.x) as this binding calls it: exactly the prototypes and types
 * the Go code uses. The cgo preambles include this file and declare
 * nothing themselves, so a test can check it against the header generated
 * from the Rust crate.
 *
 * This file holds what every known library of the generation declares
 * alike. Where libraries differ (a variant axis), each known shape is a
 * fragment variant_<axis>-<value>.h, compiled only with the Go build tag
 * <axis>_<value>; the build checks every fragment of an axis against the
 * linked library's header and turns on the tag of the one it declares
 * (docs/compat/capi.md, "Variants"). Axes: routers_result (CRoutingResult
 * layout), routers_add (request registration), routers_reservation
 * (prefill reservations).
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

/* Buffers are owned by the library until free_routing_result. Its layout is
 * a variant (variant_routers_result-*.h), defined at the end of this file. */
typedef struct CRoutingResult CRoutingResult;

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

QueryRouterResult mark_prefill_complete(RouterHandles *handle, const char *request_id);

QueryRouterResult free_request(RouterHandles *handle, const char *request_id);

void destroy(RouterHandles *handle);

#ifdef __cplusplus
}
#endif

/* The result layout the build chose (one -D from the Go file of its tag;
 * none means the 9-field layout). */
#if defined(EPP_ROUTERS_RESULT_5)
#include "variant_routers_result-5.h"
#elif defined(EPP_ROUTERS_RESULT_7)
#include "variant_routers_result-7.h"
#else
#include "variant_routers_result-9.h"
#endif

#endif
