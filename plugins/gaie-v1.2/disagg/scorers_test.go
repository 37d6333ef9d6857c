package disagg

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

func TestPrefillScorerSetsThePrefillWorkerWhenDisaggregated(t *testing.T) {
	f := newFakeRouter()
	s := NewPrefillScorer("p", f)
	cands := pods("p1", "p2")
	req := chatRequest("r1", map[string]string{PrefillWorkerIDHeader: "999"})
	cs := cycle(true)
	scores := s.Score(context.Background(), cs, req, cands)
	assert.Equal(t, map[schedtypes.Pod]float64{cands[0]: 1, cands[1]: 1}, scores)
	assert.Equal(t, "11", req.Headers[PrefillWorkerIDHeader])
	assert.True(t, PrefillEnabled(cs))
	assert.JSONEq(t, `{"model":"m","messages":[{"role":"user","content":"hello"}]}`, string(f.lastBody))
	var sent []map[string]any
	require.NoError(t, json.Unmarshal(f.lastPods, &sent))
	assert.Len(t, sent, 2)
}

func TestPrefillScorerIsIdleWhenAggregated(t *testing.T) {
	f := newFakeRouter()
	req := chatRequest("r1", map[string]string{PrefillWorkerIDHeader: "999"})
	cands := pods("p1")
	scores := NewPrefillScorer("p", f).Score(context.Background(), cycle(false), req, cands)
	assert.Equal(t, map[schedtypes.Pod]float64{cands[0]: 0}, scores)
	assert.NotContains(t, req.Headers, PrefillWorkerIDHeader, "a client's prefill header never survives")
	assert.Empty(t, f.Calls())
}

func TestPrefillFailureRoutesTheRequestAggregated(t *testing.T) {
	f := newFakeRouter()
	f.prefillErr = errors.New("no prefill worker")
	ctx := context.Background()
	cs := cycle(true)
	req := chatRequest("r1", nil)
	NewPrefillScorer("p", f).Score(ctx, cs, req, pods("p1"))
	assert.False(t, PrefillEnabled(cs))
	assert.NotContains(t, req.Headers, PrefillWorkerIDHeader)

	NewDecodeScorer(ctx, "d", f).Score(ctx, cs, req, pods("d1"))
	assert.Equal(t, []string{"route_prefill", "route_decode disagg=false"}, f.Calls())
	assert.Equal(t, ModeAggregated, req.Headers[RoutingModeHeader])
}

func TestPrefillScorerDoesNotRouteARequestWithoutText(t *testing.T) {
	f := newFakeRouter()
	cs := cycle(true)
	req := &schedtypes.LLMRequest{RequestId: "r", Body: &schedtypes.LLMRequestBody{}}
	NewPrefillScorer("p", f).Score(context.Background(), cs, req, pods("p1"))
	assert.Empty(t, f.Calls())
	assert.False(t, PrefillEnabled(cs))
}

func TestDecodeScorerLifecycle(t *testing.T) {
	f := newFakeRouter()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewDecodeScorer(ctx, "d", f)
	req := chatRequest("r1", map[string]string{WorkerIDHeader: "999", PrefillWorkerIDHeader: "11"})
	cands := pods("d1", "d2")
	scores := s.Score(ctx, cycle(true), req, cands)
	assert.Equal(t, map[schedtypes.Pod]float64{cands[0]: 1, cands[1]: 1}, scores)
	assert.Equal(t, "22", req.Headers[WorkerIDHeader])
	assert.Equal(t, "11", req.Headers[PrefillWorkerIDHeader], "the prefill scorer's choice stays")
	assert.Equal(t, ModeDisaggregated, req.Headers[RoutingModeHeader])

	s.PreRequest(ctx, req, nil)
	s.ResponseStreaming(ctx, req, nil, nil)
	s.ResponseStreaming(ctx, req, nil, nil)
	s.ResponseComplete(ctx, req, nil, nil)
	assert.Equal(t, []string{
		"route_decode disagg=true",
		"add_request r1 worker=22 rank=0 tokens=3",
		"mark_prefill_complete r1",
		"free_request r1",
	}, f.Calls())
	assert.Empty(t, f.added)

	// A second PreRequest for the same id registers nothing: the routing
	// state was consumed.
	s.PreRequest(ctx, req, nil)
	assert.Len(t, f.Calls(), 4)
}

func TestDecodeScorerAggregatedDropsAClientsPrefillHeader(t *testing.T) {
	f := newFakeRouter()
	ctx := context.Background()
	req := chatRequest("r1", map[string]string{PrefillWorkerIDHeader: "7"})
	NewDecodeScorer(ctx, "d", f).Score(ctx, cycle(false), req, pods("d1"))
	assert.NotContains(t, req.Headers, PrefillWorkerIDHeader)
	assert.Equal(t, "22", req.Headers[WorkerIDHeader])
	assert.Equal(t, ModeAggregated, req.Headers[RoutingModeHeader])
}

func TestDecodeRoutingFailureLeavesNoRoutingHeaders(t *testing.T) {
	f := newFakeRouter()
	f.decodeErr = errors.New("no decode worker")
	ctx := context.Background()
	s := NewDecodeScorer(ctx, "d", f)
	req := chatRequest("r1", map[string]string{WorkerIDHeader: "5", RoutingModeHeader: ModeAggregated})
	cands := pods("d1")
	assert.Equal(t, map[schedtypes.Pod]float64{cands[0]: 1}, s.Score(ctx, nil, req, cands))
	assert.NotContains(t, req.Headers, WorkerIDHeader)
	assert.NotContains(t, req.Headers, RoutingModeHeader)
	s.PreRequest(ctx, req, nil)
	s.ResponseStreaming(ctx, req, nil, nil)
	assert.Equal(t, []string{"route_decode disagg=false"}, f.Calls(), "nothing registered, nothing marked")
}

func TestFailedRegistrationIsNotMarkedButStillFreed(t *testing.T) {
	f := newFakeRouter()
	f.addErr = errors.New("timeout")
	ctx := context.Background()
	s := NewDecodeScorer(ctx, "d", f)
	req := chatRequest("r1", nil)
	s.Score(ctx, nil, req, pods("d1"))
	s.PreRequest(ctx, req, nil)
	s.ResponseStreaming(ctx, req, nil, nil)
	s.ResponseComplete(ctx, req, nil, nil)
	assert.Equal(t, []string{"route_decode disagg=false", "add_request r1 worker=22 rank=0 tokens=3", "free_request r1"}, f.Calls())
}

func TestNilRequestsAreIgnored(t *testing.T) {
	f := newFakeRouter()
	ctx := context.Background()
	s := NewDecodeScorer(ctx, "d", f)
	cands := pods("d1")
	assert.Equal(t, map[schedtypes.Pod]float64{cands[0]: 1}, s.Score(ctx, nil, nil, cands))
	s.PreRequest(ctx, nil, nil)
	s.ResponseStreaming(ctx, &schedtypes.LLMRequest{}, nil, nil)
	s.ResponseComplete(ctx, nil, nil, nil)
	assert.Equal(t, map[schedtypes.Pod]float64{cands[0]: 0}, NewPrefillScorer("p", f).Score(ctx, cycle(true), nil, cands))
	assert.Empty(t, f.Calls())
}
