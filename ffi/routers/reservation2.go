//go:build routers_reservation_2 || routers_reservation_timeout

package routers

/*
#include <stdlib.h>
#include "dynamo_llm_routers.h"
#if defined(EPP_ROUTERS_RESERVATION_TIMEOUT)
#include "variant_routers_reservation-timeout.h"
#else
#include "variant_routers_reservation-2.h"
#endif
*/
import "C"

import (
	"context"
	"errors"
	"unsafe"
)

// The two-call reservation forms (variants 2 and timeout): the route call
// opens the booking and reserves; cancel wakes it; mark_prefill_complete or
// free_request releases it. The forms differ only in the route call
// (reserveCall).

// PrefillReservation says whether the linked library has prefill
// reservations: here the two-call form.
const PrefillReservation = true

// PrefillReservationBegin says whether the library has a begin call. It
// has none: ReservePrefill opens the booking, so callers skip the begin.
const PrefillReservationBegin = false

// BeginPrefillReservation reports ErrPrefillReservationUnsupported: the
// library has no begin call (see PrefillReservationBegin).
func (r *Routers) BeginPrefillReservation(string) error { return ErrPrefillReservationUnsupported }

// CancelPrefillReservation cancels a booking whose reservation is pending;
// an active one stays until released.
func (r *Routers) CancelPrefillReservation(bookingID string) error {
	return r.idCall("cancel_prefill_reservation", bookingID, func(h *C.RouterHandles, id *C.char) C.QueryRouterResult {
		return C.cancel_prefill_reservation(h, id)
	})
}

// ReleasePrefillReservation drops a booking in any state with
// free_request, the call by which this library releases a reservation
// (it has no release call); idempotent, as free_request of an unknown id
// is Ok.
func (r *Routers) ReleasePrefillReservation(bookingID string) error {
	return r.FreeRequest(bookingID)
}

// ReservePrefill opens a booking and routes prefill for it, holding the
// prefill load until mark_prefill_complete or free_request. The call may
// wait for admission inside the library; CancelPrefillReservation (or
// Close) ends that wait.
func (r *Routers) ReservePrefill(ctx context.Context, bookingID string, requestJSON, podsJSON []byte) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if bookingID == "" {
		return Result{}, errors.New("reserve prefill: booking id is required")
	}
	var res Result
	err := r.call(bookingID, func(h *C.RouterHandles) error {
		id, req, pods := C.CString(bookingID), cString(requestJSON), cString(podsJSON)
		defer C.free(unsafe.Pointer(id))
		defer C.free(unsafe.Pointer(req))
		defer C.free(unsafe.Pointer(pods))
		var out C.CRoutingResult
		if err := check("route_prefill_request_with_reservation", reserveCall(ctx, h, id, req, pods, &out)); err != nil {
			return err
		}
		res = takeResult(&out)
		return nil
	})
	return res, err
}

// cancelReservations wakes the reservations in flight when Close starts.
func cancelReservations(h *C.RouterHandles, pending []string) []error {
	return cancelEach(pending, func(id *C.char) C.QueryRouterResult { return C.cancel_prefill_reservation(h, id) })
}
