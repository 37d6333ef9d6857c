// Package routers binds the "routers" generation of Dynamo's Rust C API
// (Dynamo v1.x): a prefill/decode router pair with request bookkeeping and
// prefill reservations (bookings). Its libraries differ in a few shapes
// (variants: the CRoutingResult layout, the add_request form, the
// reservation form); the build compiles the one the linked library's
// header declares (Go build tags <axis>_<value>, see Variant and
// dynamo_llm_routers.h), and the Go API is the same for all of them.
//
// The library is linked statically from lib/<goarch>/libdynamo_llm_capi.a
// next to this package (a build stage or ffi/build-double.sh puts it there).
package routers

/*
#cgo amd64 LDFLAGS: -L${SRCDIR}/lib/amd64
#cgo arm64 LDFLAGS: -L${SRCDIR}/lib/arm64
#cgo LDFLAGS: -ldynamo_llm_capi -ldl -lpthread -lm
#include <stdlib.h>
#include "dynamo_llm_routers.h"
*/
import "C"
