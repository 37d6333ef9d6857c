package disagg_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

// A C API without reservation calls (a Dynamo release): the prefill worker
// comes from the advisory route_prefill_request, as in Dynamo's release
// EPP, and the request still routes disaggregated; nothing is reserved,
// so nothing is released.
func TestUnsupportedReservationFallsBackToAdvisoryPrefill(t *testing.T) {
	fake := &rt.Fake{BeginFunc: func(string) error { return kvrouter.ErrPrefillReservationUnsupported }}
	r := newRuntime(t, fake)
	prefill, err := disagg.NewPrefillScorer("", r, disagg.HooksFor(fake), disagg.PrefillParams{})
	require.NoError(t, err)
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})
	req, cs := newRequest(nil), disaggCycle()

	prefill.Score(context.Background(), cs, req, endpoints())
	assert.Equal(t, "3", req.Headers[disagg.PrefillWorkerIDHeader], "the advisory decision's prefill worker")
	decode.Score(context.Background(), cs, req, endpoints())
	assert.Equal(t, disagg.ModeDisaggregated, req.Headers[disagg.RoutingModeHeader])
	assert.Equal(t, "3", req.Headers[disagg.PrefillWorkerIDHeader])
	assert.Equal(t, 1, fake.Count(rt.OpRoutePrefill))
	assert.Zero(t, fake.Count(rt.OpReserve))
	assert.Zero(t, fake.Count(rt.OpRelease))
	assert.Equal(t, 1, fake.Count(rt.OpAdd))
}

// Without an advisory hook the scorer falls back to aggregated, as for
// any other reservation failure.
func TestUnsupportedReservationWithoutAdvisoryRoutesAggregated(t *testing.T) {
	fake := &rt.Fake{BeginFunc: func(string) error { return kvrouter.ErrPrefillReservationUnsupported }}
	r := newRuntime(t, fake)
	hooks := disagg.HooksFor(fake)
	hooks.Advisory = nil
	prefill, err := disagg.NewPrefillScorer("", r, hooks, disagg.PrefillParams{})
	require.NoError(t, err)
	req, cs := newRequest(nil), disaggCycle()
	prefill.Score(context.Background(), cs, req, endpoints())
	assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader)
	assert.Zero(t, fake.Count(rt.OpRoutePrefill))
}
