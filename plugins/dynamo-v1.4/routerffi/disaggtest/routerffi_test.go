//go:build routers_reservation_4

package disaggtest_test

// These tests link the C API test double (testdata/capi-double): run
// ffi/build-double.sh first.

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

// A whole request through the cgo binding: reserve prefill, route and
// register decode, mark on the first chunk, free at the end, each once and
// in order. (Like Dynamo, the library answers Ok to a second free, so the
// order is read from the calls, not from errors.)
func TestLifecycleThroughCAPIDouble(t *testing.T) {
	router := open(t)
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
	decode.Score(context.Background(), cs, req, eps)
	assert.Equal(t, disagg.ModeDisaggregated, req.Headers[disagg.RoutingModeHeader])
	require.Contains(t, req.Headers, disagg.WorkerIDHeader)
	id := req.Headers[disagg.BookingIDHeader]

	decode.ResponseBody(context.Background(), req, &fwkrc.Response{}, nil)
	decode.ResponseBody(context.Background(), req, &fwkrc.Response{EndOfStream: true}, nil)
	assert.Equal(t, id, <-router.freed)
	for rt.Bookings.Outstanding() > 0 {
		time.Sleep(time.Millisecond)
	}
	ops := router.ops(id)
	assert.Equal(t, "free", ops[len(ops)-1], "freed last, once: %v", ops)
	assert.NotContains(t, ops, "release", "a registered booking is freed, not released")

	// The booking is gone from the library: its id can be begun again.
	require.NoError(t, router.Router.BeginPrefillReservation(id))
	require.NoError(t, router.Router.ReleasePrefillReservation(id))
}

// A cancelled reservation through the binding: the double's booking is
// Cancelled, the late result fails, and release drops it.
func TestCancelledReservationReleasedThroughCAPIDouble(t *testing.T) {
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

	// Wait until the late reserve came back and released the booking: a new
	// begin under the same id succeeds only once it is gone.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := router.Router.BeginPrefillReservation(id)
		if err == nil {
			break
		}
		var callErr *routers.CallError
		require.True(t, errors.As(err, &callErr) && callErr.Code == routers.CodeInvalidParam, "unexpected error %v", err)
		require.True(t, time.Now().Before(deadline), "booking %s never released", id)
		time.Sleep(time.Millisecond)
	}
	assert.Equal(t, []string{"release"}, router.ops(id))
	require.NoError(t, router.Router.ReleasePrefillReservation(id))
}
