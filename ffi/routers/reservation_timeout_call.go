//go:build routers_reservation_timeout

package routers

/*
#cgo CFLAGS: -DEPP_ROUTERS_RESERVATION_TIMEOUT
#include "variant_routers_reservation-timeout.h"
*/
import "C"

import (
	"context"
	"time"
)

const reservationVariant = "timeout"

// reserveCall passes the time left before ctx's deadline as timeout_ms
// (0, no limit, without a deadline; at least 1 ms with one).
func reserveCall(ctx context.Context, h *C.RouterHandles, id, req, pods *C.char, out *C.CRoutingResult) uint32 {
	return uint32(C.route_prefill_request_with_reservation(h, id, req, pods, out, C.uint64_t(timeoutMillis(ctx))))
}

func timeoutMillis(ctx context.Context) uint64 {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return uint64(max(time.Until(deadline).Milliseconds(), 1))
}
