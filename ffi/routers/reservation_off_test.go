//go:build !dynamo_prefill_reservation

package routers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Without the tag the binding calls none of the reservation functions (a
// Dynamo release's library has none) and says so.
func TestPrefillReservationUnsupportedWithoutTheTag(t *testing.T) {
	r := openRouters(t, false)
	require.ErrorIs(t, r.BeginPrefillReservation("b-1"), ErrPrefillReservationUnsupported)
	_, err := r.ReservePrefill(context.Background(), "b-1", request, pods)
	require.ErrorIs(t, err, ErrPrefillReservationUnsupported)
	require.ErrorIs(t, r.CancelPrefillReservation("b-1"), ErrPrefillReservationUnsupported)
	require.ErrorIs(t, r.ReleasePrefillReservation("b-1"), ErrPrefillReservationUnsupported)
}
