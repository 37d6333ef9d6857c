//go:build routers_reservation_none || !(routers_reservation_4 || routers_reservation_2 || routers_reservation_timeout)

package routers

/*
#include "variant_routers_reservation-none.h"
*/
import "C"

import "context"

const reservationVariant = "none"

// PrefillReservation says whether the linked library has prefill
// reservations. Here it has none (every Dynamo release): the binding
// references none of their functions and callers route prefill with
// RoutePrefill (advisory).
const PrefillReservation = false

// PrefillReservationBegin says whether the library has a begin call.
const PrefillReservationBegin = false

// BeginPrefillReservation reports ErrPrefillReservationUnsupported.
func (r *Routers) BeginPrefillReservation(string) error { return ErrPrefillReservationUnsupported }

// CancelPrefillReservation reports ErrPrefillReservationUnsupported.
func (r *Routers) CancelPrefillReservation(string) error { return ErrPrefillReservationUnsupported }

// ReleasePrefillReservation reports ErrPrefillReservationUnsupported.
func (r *Routers) ReleasePrefillReservation(string) error { return ErrPrefillReservationUnsupported }

// ReservePrefill reports ErrPrefillReservationUnsupported.
func (r *Routers) ReservePrefill(context.Context, string, []byte, []byte) (Result, error) {
	return Result{}, ErrPrefillReservationUnsupported
}

// cancelReservations has nothing to wake: no reservation is ever in flight.
func cancelReservations(*C.RouterHandles, []string) []error { return nil }
