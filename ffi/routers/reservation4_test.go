//go:build routers_reservation_4

package routers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrefillReservationLifecycle(t *testing.T) {
	r := openRouters(t, false)
	require.True(t, PrefillReservation)
	require.True(t, PrefillReservationBegin)

	require.NoError(t, r.BeginPrefillReservation("b-1"))
	res, err := r.ReservePrefill(context.Background(), "b-1", request, pods)
	require.NoError(t, err)
	assert.Equal(t, expectedPod("prefill", "route me", "decode-0", "decode-1", "decode-2"), res.PrefillWorkerID)
	assert.Equal(t, int64(1), r.outstandingBookings())
	require.NoError(t, r.ReleasePrefillReservation("b-1"))
	require.NoError(t, r.ReleasePrefillReservation("b-1"), "release is idempotent")
	assert.Equal(t, int64(0), r.outstandingBookings())

	// A cancelled pending booking cannot be reserved; release still cleans it.
	require.NoError(t, r.BeginPrefillReservation("b-2"))
	require.NoError(t, r.CancelPrefillReservation("b-2"))
	_, err = r.ReservePrefill(context.Background(), "b-2", request, pods)
	var callErr *CallError
	require.ErrorAs(t, err, &callErr)
	assert.Equal(t, "route_prefill_request_with_reservation", callErr.Call)
	assert.Equal(t, CodeQueryFailed, callErr.Code)
	require.NoError(t, r.ReleasePrefillReservation("b-2"))
	assert.Equal(t, int64(0), r.outstandingBookings())

	_, err = r.ReservePrefill(context.Background(), "never-begun", request, pods)
	require.ErrorAs(t, err, &callErr)
	assert.Equal(t, CodeInvalidParam, callErr.Code)
}
