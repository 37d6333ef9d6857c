package disagg

import (
	"errors"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/booking"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// Runtime is what the two scorers share: the router and the single owner
// of every booking made on it.
type Runtime struct {
	Router   kvrouter.Router
	Bookings *booking.Manager
}

// NewRuntime starts the booking manager over router.
func NewRuntime(router kvrouter.Router, opt booking.Options) *Runtime {
	return &Runtime{Router: router, Bookings: booking.New(router, opt)}
}

// Close stops the booking work first, so nothing calls the router while
// it is being destroyed, then closes the router.
func (rt *Runtime) Close() error {
	rt.Bookings.Close()
	return errors.Join(rt.Router.Close())
}
