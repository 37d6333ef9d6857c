package disaggtest_test

// These tests link the C API test double (testdata/capi-double): run
// ffi/build-double.sh first.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/disagg"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/routerffi"
)

// A disaggregated request through the library: the prefill scorer routes
// prefill, the decode scorer routes decode, registers the request, marks
// its first token and frees it, all over the C API.
func TestDisaggregatedRequestThroughTheCAPIDouble(t *testing.T) {
	r, err := routerffi.Open(dynrouter.Config{Namespace: "dynamo", Component: "backend"})
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Close()) }()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prefill := disagg.NewPrefillScorer("pre", r)
	decode := disagg.NewDecodeScorer(ctx, "dec", r)
	pods := []schedtypes.Pod{
		&schedtypes.PodMetrics{Pod: &backend.Pod{PodName: "worker-0"}},
		&schedtypes.PodMetrics{Pod: &backend.Pod{PodName: "worker-1"}},
	}
	req := &schedtypes.LLMRequest{RequestId: "gw-1", TargetModel: "qwen", Headers: map[string]string{},
		Body: &schedtypes.LLMRequestBody{ChatCompletions: &schedtypes.ChatCompletionsRequest{
			Messages: []schedtypes.Message{{Role: "user", Content: schedtypes.Content{Raw: "route me"}}},
		}}}
	cs := schedtypes.NewCycleState()
	disagg.SetPrefillEnabled(cs, true)

	assert.Len(t, prefill.Score(ctx, cs, req, pods), 2)
	require.Contains(t, req.Headers, disagg.PrefillWorkerIDHeader, "route_prefill_request picked a prefill worker")
	decode.Score(ctx, cs, req, pods)
	require.Contains(t, req.Headers, disagg.WorkerIDHeader)
	assert.Equal(t, disagg.ModeDisaggregated, req.Headers[disagg.RoutingModeHeader])

	decode.PreRequest(ctx, req, nil)
	decode.ResponseStreaming(ctx, req, nil, nil)
	decode.ResponseComplete(ctx, req, nil, nil)
}

func TestCallsAfterCloseFail(t *testing.T) {
	r, err := routerffi.Open(dynrouter.Config{Namespace: "dynamo"})
	require.NoError(t, err)
	require.NoError(t, r.Close())
	_, err = r.RouteDecode(context.Background(), []byte(`{"model":"m","messages":[{"role":"user","content":"x"}]}`), nil, false)
	assert.Error(t, err)
	assert.Error(t, r.AddRequest("id", []uint32{1}, 1, 0))
}
