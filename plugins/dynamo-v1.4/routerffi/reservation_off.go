//go:build !dynamo_prefill_reservation

package routerffi

import (
	"context"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// prefillReservation: the linked library (a Dynamo release) has no
// reservation calls; the prefill scorer falls back to advisory routing.
const prefillReservation = false

func (a *Router) BeginPrefillReservation(string) error {
	return kvrouter.ErrPrefillReservationUnsupported
}

func (a *Router) ReservePrefill(context.Context, string, []byte, []byte) (kvrouter.Decision, error) {
	return kvrouter.Decision{}, kvrouter.ErrPrefillReservationUnsupported
}

func (a *Router) CancelPrefillReservation(string) error {
	return kvrouter.ErrPrefillReservationUnsupported
}

func (a *Router) ReleasePrefillReservation(string) error {
	return kvrouter.ErrPrefillReservationUnsupported
}
