//go:build routers_reservation_2 || routers_reservation_timeout

package disaggtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkrc "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requestcontrol"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/ffi/routers"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/booking"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// reservable reports whether a booking id is free in the library: the
// two-call form refuses to reserve an id it still holds.
func reservable(t *testing.T, r kvrouter.Router, id string) bool {
	t.Helper()
	_, err := r.ReservePrefill(context.Background(), id, []byte(`{"model":"qwen","prompt":"probe"}`), nil)
	if err == nil {
		require.NoError(t, r.ReleasePrefillReservation(id))
		return true
	}
	var callErr *routers.CallError
	require.True(t, errors.As(err, &callErr) && callErr.Code == routers.CodeInvalidParam, "unexpected error %v", err)
	return false
}

// A whole request through the binding of a library without begin and
// release calls: the scorer never calls begin, the reserve call opens the
// booking, and the free at the end drops it.
func TestTwoCallLifecycleThroughCAPIDouble(t *testing.T) {
	router := open(t)
	assert.False(t, disagg.HooksFor(router).Begin != nil, "no begin where the library has none")
	rt := disagg.NewRuntime(router, booking.Options{MarkBackoff: time.Millisecond, FreeBackoff: time.Millisecond})
	defer func() { require.NoError(t, rt.Close()) }()

	prefill, err := disagg.NewPrefillScorer("", rt, disagg.HooksFor(router), disagg.PrefillParams{})
	require.NoError(t, err)
	decode := disagg.NewDecodeScorer("", rt, disagg.DecodeParams{})
	eps := []fwksched.Endpoint{
		fwksched.NewEndpoint(&fwkdl.EndpointMetadata{PodName: "decode-0"}, fwkdl.NewMetrics(), nil),
		fwksched.NewEndpoint(&fwkdl.EndpointMetadata{PodName: "decode-1"}, fwkdl.NewMetrics(), nil),
	}
	req, cs := request(), fwksched.NewCycleState()
	cs.Write(disagg.PrefillEnabledKey, &disagg.PrefillEnabled{Enabled: true})

	prefill.Score(context.Background(), cs, req, eps)
	require.Contains(t, req.Headers, disagg.PrefillWorkerIDHeader, "the double reserved a prefill worker")
	id := req.Headers[disagg.BookingIDHeader]
	assert.False(t, reservable(t, router.Router, id), "the reservation is held")
	decode.Score(context.Background(), cs, req, eps)
	require.Contains(t, req.Headers, disagg.WorkerIDHeader)

	decode.ResponseBody(context.Background(), req, &fwkrc.Response{}, nil)
	decode.ResponseBody(context.Background(), req, &fwkrc.Response{EndOfStream: true}, nil)
	assert.Equal(t, id, <-router.freed)
	for rt.Bookings.Outstanding() > 0 {
		time.Sleep(time.Millisecond)
	}
	ops := router.ops(id)
	assert.Equal(t, "free", ops[len(ops)-1], "freed last, once: %v", ops)
	assert.True(t, reservable(t, router.Router, id), "the free released the reservation")
}

// A reservation the scorer gave up on is released with free_request, the
// call this library releases by.
func TestTwoCallCancelledReservationReleased(t *testing.T) {
	router := open(t)
	rt := disagg.NewRuntime(router, booking.Options{})
	defer func() { require.NoError(t, rt.Close()) }()
	hooks := disagg.HooksFor(router)
	entered := make(chan struct{})
	reserve := hooks.Reserve
	hooks.Reserve = func(ctx context.Context, id string, req, pods []byte) (kvrouter.Decision, error) {
		close(entered)
		<-ctx.Done() // hold the call until the scorer gave up, then reserve late
		return reserve(context.Background(), id, req, pods)
	}
	prefill, err := disagg.NewPrefillScorer("", rt, hooks, disagg.PrefillParams{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	req, cs := request(), fwksched.NewCycleState()
	prefill.Score(ctx, cs, req, nil)
	assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader)
	id := req.Headers[disagg.BookingIDHeader]

	// The late reserve comes back (cancelled while routing, or held: the
	// cancel came first and changed nothing) and is released; the id is
	// then free in the library.
	deadline := time.Now().Add(10 * time.Second)
	for !reservable(t, router.Router, id) {
		require.True(t, time.Now().Before(deadline), "booking %s never released", id)
		time.Sleep(time.Millisecond)
	}
	assert.Equal(t, []string{"release"}, router.ops(id))
}
