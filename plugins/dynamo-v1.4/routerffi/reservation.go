package routerffi

import (
	"context"
	"errors"

	"github.com/epp-build/epp-build/ffi/routers"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// The reservation calls pass through to the binding, whichever reservation
// form its library has (routers.Variant); a call the library lacks reports
// kvrouter.ErrPrefillReservationUnsupported, so the prefill scorer falls
// back to advisory routing.

var _ kvrouter.ReservationBegin = (*Router)(nil)

// HasPrefillReservationBegin says whether the library has a begin call;
// the prefill scorer calls begin only when it does.
func (a *Router) HasPrefillReservationBegin() bool { return routers.PrefillReservationBegin }

func (a *Router) BeginPrefillReservation(id string) error {
	return unsupported(a.r.BeginPrefillReservation(id))
}

func (a *Router) ReservePrefill(ctx context.Context, id string, request, pods []byte) (kvrouter.Decision, error) {
	res, err := a.r.ReservePrefill(ctx, id, request, pods)
	return decision(res), unsupported(err)
}

func (a *Router) CancelPrefillReservation(id string) error {
	return unsupported(a.r.CancelPrefillReservation(id))
}

func (a *Router) ReleasePrefillReservation(id string) error {
	return unsupported(a.r.ReleasePrefillReservation(id))
}

// unsupported turns the binding's "not in this library" into kvrouter's.
func unsupported(err error) error {
	if errors.Is(err, routers.ErrPrefillReservationUnsupported) {
		return kvrouter.ErrPrefillReservationUnsupported
	}
	return err
}
