//go:build routers_reservation_timeout

package routers

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The context deadline reaches the library as timeout_ms: a reservation
// slower than that fails with the library's timeout and holds nothing.
func TestReservationTimeoutComesFromTheDeadline(t *testing.T) {
	r := openRouters(t, false)
	t.Setenv("DYNAMO_DOUBLE_QUERY_DELAY_US", "50000")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := r.ReservePrefill(ctx, "b-1", request, pods)
	var callErr *CallError
	require.ErrorAs(t, err, &callErr)
	assert.Equal(t, CodeTimeout, callErr.Code)
	assert.Equal(t, int64(0), r.outstandingBookings())

	// Without a deadline there is no limit.
	_, err = r.ReservePrefill(context.Background(), "b-2", request, pods)
	require.NoError(t, err)
	require.NoError(t, r.ReleasePrefillReservation("b-2"))
}

func TestTimeoutMillis(t *testing.T) {
	assert.Equal(t, uint64(0), timeoutMillis(context.Background()))
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	assert.Equal(t, uint64(1), timeoutMillis(past), "an expired deadline still bounds the call")
}
