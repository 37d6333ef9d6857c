//go:build routers_reservation_none || !(routers_reservation_4 || routers_reservation_2 || routers_reservation_timeout)

package routers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Variant none: the binding calls none of the reservation functions (a
// Dynamo release's library has none) and says so.
func TestPrefillReservationUnsupportedWithoutReservations(t *testing.T) {
	require.False(t, PrefillReservation)
	r := openRouters(t, false)
	require.ErrorIs(t, r.BeginPrefillReservation("b-1"), ErrPrefillReservationUnsupported)
	_, err := r.ReservePrefill(context.Background(), "b-1", request, pods)
	require.ErrorIs(t, err, ErrPrefillReservationUnsupported)
	require.ErrorIs(t, r.CancelPrefillReservation("b-1"), ErrPrefillReservationUnsupported)
	require.ErrorIs(t, r.ReleasePrefillReservation("b-1"), ErrPrefillReservationUnsupported)
}
