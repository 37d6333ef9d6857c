//go:build !dynamo_prefill_reservation

package routers

/*
#include "dynamo_llm_routers.h"
*/
import "C"

import "context"

// PrefillReservation says whether this build calls the library's prefill
// reservation functions (build tag dynamo_prefill_reservation). Without
// the tag the binding references none of them, so it links against a
// Dynamo release's library, which has none.
const PrefillReservation = false

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
