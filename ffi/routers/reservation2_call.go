//go:build routers_reservation_2

package routers

/*
#include "variant_routers_reservation-2.h"
*/
import "C"

import "context"

const reservationVariant = "2"

// reserveCall is the five-parameter route call; the caller's deadline
// cannot reach the library, CancelPrefillReservation ends a wait.
func reserveCall(_ context.Context, h *C.RouterHandles, id, req, pods *C.char, out *C.CRoutingResult) uint32 {
	return uint32(C.route_prefill_request_with_reservation(h, id, req, pods, out))
}
