//go:build dynamo_prefill_reservation

package routerffi

import (
	"context"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// prefillReservation: the linked library has the reservation calls.
const prefillReservation = true

func (a *Router) BeginPrefillReservation(id string) error {
	return a.r.BeginPrefillReservation(id)
}

func (a *Router) ReservePrefill(ctx context.Context, id string, request, pods []byte) (kvrouter.Decision, error) {
	res, err := a.r.ReservePrefill(ctx, id, request, pods)
	return decision(res), err
}

func (a *Router) CancelPrefillReservation(id string) error { return a.r.CancelPrefillReservation(id) }
func (a *Router) ReleasePrefillReservation(id string) error {
	return a.r.ReleasePrefillReservation(id)
}
