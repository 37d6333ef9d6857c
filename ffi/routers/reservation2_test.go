//go:build routers_reservation_2 || routers_reservation_timeout

package routers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/ffi/internal/capidouble"
)

// The two-call forms: no begin, the route call opens the booking, and
// mark_prefill_complete or free_request releases it.
func TestTwoCallReservationLifecycle(t *testing.T) {
	r := openRouters(t, false)
	require.True(t, PrefillReservation)
	require.False(t, PrefillReservationBegin, "callers must skip the begin call")
	require.ErrorIs(t, r.BeginPrefillReservation("b-1"), ErrPrefillReservationUnsupported)

	res, err := r.ReservePrefill(context.Background(), "b-1", request, pods)
	require.NoError(t, err)
	assert.Equal(t, expectedPod("prefill", "route me", "decode-0", "decode-1", "decode-2"), res.PrefillWorkerID)
	assert.Equal(t, int64(1), r.outstandingBookings())
	_, err = r.ReservePrefill(context.Background(), "b-1", request, pods)
	var callErr *CallError
	require.ErrorAs(t, err, &callErr, "a booking id is reserved once")
	assert.Equal(t, CodeInvalidParam, callErr.Code)
	require.NoError(t, r.MarkPrefillComplete("b-1"), "the first token releases the prefill load")
	assert.Equal(t, int64(0), r.outstandingBookings())

	// Release is free_request here: it drops a reservation that never got
	// a decode registration, and is idempotent.
	ignored := capidouble.IgnoredCalls()
	_, err = r.ReservePrefill(context.Background(), "b-2", request, pods)
	require.NoError(t, err)
	require.NoError(t, r.ReleasePrefillReservation("b-2"))
	assert.Equal(t, int64(0), r.outstandingBookings())
	assert.Equal(t, ignored, capidouble.IgnoredCalls(), "the release found the booking")
	require.NoError(t, r.ReleasePrefillReservation("b-2"))

	// A cancel that lands before the route call changes nothing: the call
	// reserves, and whoever gave up must release the late result.
	require.NoError(t, r.CancelPrefillReservation("b-3"))
	_, err = r.ReservePrefill(context.Background(), "b-3", request, pods)
	require.NoError(t, err)
	require.NoError(t, r.ReleasePrefillReservation("b-3"))
	assert.Equal(t, int64(0), r.outstandingBookings())
}
