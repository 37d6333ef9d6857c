package pipelinerouter

// These tests link the C API test double built with Dynamo v0.8.0's
// signatures: run ffi/build-double.sh first (in the GAIE tree, stage that
// archive into the pipeline copy's lib/<goarch>/). The double picks decode
// worker FNV-1a-64(prompt) mod 4 and, with enforce_disagg, the next worker
// for prefill.

import (
	"context"
	"hash/fnv"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	kv07 "github.com/epp-build/epp-build/plugins/dynamo-v0.7/kvscorer"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/kvscorer"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

func TestScorerThroughTheCAPI(t *testing.T) {
	for _, disagg := range []bool{false, true} {
		cfg := kvscorer.Config{Config: kv07.Config{Namespace: "dynamo", Component: "backend", Model: "qwen", KVBlockSize: 16,
			UseKVRouting: true, OverlapScoreWeight: -1, RouterTemperature: -1, BusyThreshold: -1}, EnforceDisagg: disagg}
		router, err := Open(cfg)
		require.NoError(t, err)
		scorer := kvscorer.New("dyn-kv", cfg, router)

		request := &types.LLMRequest{RequestId: "r1", TargetModel: "qwen", Prompt: "hello", Headers: map[string]string{}}
		scorer.Score(context.Background(), types.NewCycleState(), request, nil)
		h := fnv.New64a()
		_, _ = h.Write([]byte("hello"))
		decode := h.Sum64() % 4
		assert.Equal(t, itoa(decode), request.Headers[kvscorer.WorkerIDHeader], "disagg=%v", disagg)
		if disagg {
			assert.Equal(t, itoa((decode+1)%4), request.Headers[kvscorer.PrefillWorkerIDHeader])
		} else {
			assert.NotContains(t, request.Headers, kvscorer.PrefillWorkerIDHeader)
		}
		assert.NotEmpty(t, request.Headers[kvscorer.TokenDataHeader])
		require.NoError(t, scorer.FreeRequest("r1"), "the request Score registered is freed")
		require.NoError(t, scorer.Close())
		assert.Error(t, scorer.FreeRequest("r1"), "a closed router refuses calls")
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
