package pipelineffi_test

// These tests link the C API test double built with Dynamo v0.8.0's
// signatures, which v0.9 keeps: run ffi/build-double.sh first (in the GAIE
// tree, stage that archive into the pipeline copy's lib/<goarch>/). The
// double picks decode worker FNV-1a-64(prompt) mod 4 and, with
// enforce_disagg, the next worker for prefill.

import (
	"context"
	"hash/fnv"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/kvscorer"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/pipelineffi"
)

func TestScorerThroughTheCAPI(t *testing.T) {
	h := fnv.New64a()
	_, _ = h.Write([]byte("hello"))
	decode := h.Sum64() % 4
	for _, disagg := range []bool{false, true} {
		cfg := kvscorer.Config{Namespace: "dynamo", Component: "backend", Model: "qwen", KVBlockSize: 16,
			UseKVRouting: true, OverlapScoreWeight: -1, RouterTemperature: -1, BusyThreshold: -1, EnforceDisagg: disagg}
		router, err := pipelineffi.Open(cfg)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		s := kvscorer.New(ctx, "kv", router, cfg.Model)

		req := &schedtypes.LLMRequest{RequestId: "r1", TargetModel: "qwen", Headers: map[string]string{},
			Body: &schedtypes.LLMRequestBody{ChatCompletions: &schedtypes.ChatCompletionsRequest{
				Messages: []schedtypes.Message{{Role: "user", Content: schedtypes.Content{Raw: "hello"}}},
			}}}
		s.Score(ctx, schedtypes.NewCycleState(), req, nil)
		assert.Equal(t, strconv.FormatUint(decode, 10), req.Headers[kvscorer.WorkerIDHeader], "disagg=%v", disagg)
		if disagg {
			assert.Equal(t, strconv.FormatUint((decode+1)%4, 10), req.Headers[kvscorer.PrefillWorkerIDHeader])
			assert.Equal(t, kvscorer.ModeDisaggregated, req.Headers[kvscorer.RoutingModeHeader])
		} else {
			assert.NotContains(t, req.Headers, kvscorer.PrefillWorkerIDHeader)
			assert.Equal(t, kvscorer.ModeAggregated, req.Headers[kvscorer.RoutingModeHeader])
		}
		s.PreRequest(ctx, req, nil)
		s.ResponseStreaming(ctx, req, nil, nil)
		s.ResponseComplete(ctx, req, nil, nil)
		cancel()
		require.NoError(t, router.Close())
		_, err = router.Select(context.Background(), []byte(`{}`))
		assert.Error(t, err, "calls after Close fail")
	}
}
