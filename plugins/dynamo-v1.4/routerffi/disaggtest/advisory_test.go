//go:build routers_reservation_none || !(routers_reservation_4 || routers_reservation_2 || routers_reservation_timeout)

package disaggtest_test

// These tests link the C API test double (testdata/capi-double) with the
// binding's reservation variant none: the binding of a Dynamo release.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkrc "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requestcontrol"
	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/booking"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/routerffi"
)

func TestWithoutReservationsTheyAreUnsupported(t *testing.T) {
	assert.Contains(t, routerffi.Variant(), "routers_reservation_none")
	r, err := routerffi.Open(kvrouter.Config{Namespace: "dynamo"})
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()
	require.ErrorIs(t, r.BeginPrefillReservation("b"), kvrouter.ErrPrefillReservationUnsupported)
	_, err = r.ReservePrefill(context.Background(), "b", nil, nil)
	require.ErrorIs(t, err, kvrouter.ErrPrefillReservationUnsupported)
}

// Without reservations the prefill scorer routes prefill the way Dynamo's
// release EPP does (route_prefill_request, advisory) and the request is
// still served disaggregated: decode registered, freed at the end.
func TestAdvisoryPrefillThroughCAPIDouble(t *testing.T) {
	r, err := routerffi.Open(kvrouter.Config{Namespace: "dynamo"})
	require.NoError(t, err)
	rt := disagg.NewRuntime(r, booking.Options{MarkBackoff: time.Millisecond, FreeBackoff: time.Millisecond})
	defer func() { require.NoError(t, rt.Close()) }()

	prefill, err := disagg.NewPrefillScorer("", rt, disagg.HooksFor(r), disagg.PrefillParams{})
	require.NoError(t, err)
	decode := disagg.NewDecodeScorer("", rt, disagg.DecodeParams{})
	eps := []fwksched.Endpoint{
		fwksched.NewEndpoint(&fwkdl.EndpointMetadata{PodName: "decode-0"}, fwkdl.NewMetrics(), nil),
		fwksched.NewEndpoint(&fwkdl.EndpointMetadata{PodName: "decode-1"}, fwkdl.NewMetrics(), nil),
	}
	req := &fwksched.InferenceRequest{RequestId: "gw-1", Headers: map[string]string{},
		Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.PayloadMap{
			"model":    "qwen",
			"messages": []any{map[string]any{"role": "user", "content": "route me"}},
		}}}
	cs := fwksched.NewCycleState()
	cs.Write(disagg.PrefillEnabledKey, &disagg.PrefillEnabled{Enabled: true})

	prefill.Score(context.Background(), cs, req, eps)
	require.Contains(t, req.Headers, disagg.PrefillWorkerIDHeader, "route_prefill_request picked a prefill worker")
	decode.Score(context.Background(), cs, req, eps)
	assert.Equal(t, disagg.ModeDisaggregated, req.Headers[disagg.RoutingModeHeader])
	require.Contains(t, req.Headers, disagg.PrefillWorkerIDHeader, "the advisory prefill worker reaches the frontend")
	require.Contains(t, req.Headers, disagg.WorkerIDHeader)

	decode.ResponseBody(context.Background(), req, &fwkrc.Response{}, nil)
	decode.ResponseBody(context.Background(), req, &fwkrc.Response{EndOfStream: true}, nil)
	for rt.Bookings.Outstanding() > 0 {
		time.Sleep(time.Millisecond)
	}
}
