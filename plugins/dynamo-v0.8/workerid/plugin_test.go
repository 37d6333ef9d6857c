package workerid

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/kvscorer"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

func run(t *testing.T, headers map[string]string, body map[string]any) string {
	t.Helper()
	p, err := Factory("dyn-pre", json.RawMessage(`{}`), nil)
	require.NoError(t, err)
	req := &types.LLMRequest{Headers: headers}
	p.(*Plugin).PreRequest(context.Background(), req, nil, 8000)
	p.(*Plugin).MutateRequestBody(context.Background(), req, nil, 8000, body)
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	return string(raw)
}

func TestMutateRequestBody(t *testing.T) {
	tokens := bbrhints.EncodeTokenData([]uint32{7, 4294967295})
	t.Run("aggregated", func(t *testing.T) {
		headers := map[string]string{kvscorer.WorkerIDHeader: " 12 ", kvscorer.TokenDataHeader: tokens}
		got := run(t, headers, map[string]any{"model": "m", "nvext": map[string]any{"annotations": []any{"query_instance_id"}}})
		assert.JSONEq(t, `{"model":"m","nvext":{"backend_instance_id":12,"token_data":[7,4294967295]}}`, got)
		assert.Equal(t, map[string]string{kvscorer.WorkerIDHeader: "12"}, headers, "the token carrier is removed")
	})
	t.Run("disaggregated", func(t *testing.T) {
		headers := map[string]string{kvscorer.WorkerIDHeader: "12", kvscorer.PrefillWorkerIDHeader: "3"}
		got := run(t, headers, map[string]any{"nvext": map[string]any{"annotations": []any{"timing", "query_instance_id"}}})
		assert.JSONEq(t, `{"nvext":{"prefill_worker_id":3,"decode_worker_id":12,"annotations":["timing"]}}`, got)
	})
	t.Run("prefill equal to decode is aggregated", func(t *testing.T) {
		got := run(t, map[string]string{kvscorer.WorkerIDHeader: "5", kvscorer.PrefillWorkerIDHeader: "5"}, map[string]any{})
		assert.JSONEq(t, `{"nvext":{"backend_instance_id":5}}`, got)
	})
	t.Run("malformed ids change nothing", func(t *testing.T) {
		headers := map[string]string{kvscorer.WorkerIDHeader: "-1", kvscorer.PrefillWorkerIDHeader: "x"}
		assert.JSONEq(t, `{"model":"m"}`, run(t, headers, map[string]any{"model": "m"}))
		assert.Empty(t, headers, "malformed ids are not forwarded")
	})
}

func TestFactoryRefusesParameters(t *testing.T) {
	_, err := Factory("dyn-pre", json.RawMessage(`{"x":1}`), nil)
	assert.Error(t, err)
}
