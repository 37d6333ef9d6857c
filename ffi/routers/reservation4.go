//go:build routers_reservation_4

package routers

/*
#include <stdlib.h>
#include "variant_routers_reservation-4.h"
*/
import "C"

import (
	"context"
	"errors"
	"unsafe"
)

const reservationVariant = "4"

// PrefillReservation says whether the linked library has prefill
// reservations: here the four-call form.
const PrefillReservation = true

// PrefillReservationBegin says whether the library has a begin call. It
// does: a booking is begun before it is reserved.
const PrefillReservationBegin = true

// BeginPrefillReservation opens a booking.
func (r *Routers) BeginPrefillReservation(bookingID string) error {
	return r.idCall("begin_prefill_reservation", bookingID, func(h *C.RouterHandles, id *C.char) C.QueryRouterResult {
		return C.begin_prefill_reservation(h, id)
	})
}

// CancelPrefillReservation cancels a booking whose reservation is pending;
// an active one stays until released.
func (r *Routers) CancelPrefillReservation(bookingID string) error {
	return r.idCall("cancel_prefill_reservation", bookingID, func(h *C.RouterHandles, id *C.char) C.QueryRouterResult {
		return C.cancel_prefill_reservation(h, id)
	})
}

// ReleasePrefillReservation drops a booking in any state; idempotent.
func (r *Routers) ReleasePrefillReservation(bookingID string) error {
	return r.idCall("release_prefill_reservation", bookingID, func(h *C.RouterHandles, id *C.char) C.QueryRouterResult {
		return C.release_prefill_reservation(h, id)
	})
}

// ReservePrefill routes prefill for a begun booking and holds the prefill
// load until the booking is released or freed. The call may wait for
// admission inside the library; CancelPrefillReservation (or Close) ends
// that wait.
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
		code := C.route_prefill_request_with_reservation(h, id, req, pods, &out)
		if err := check("route_prefill_request_with_reservation", uint32(code)); err != nil {
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
