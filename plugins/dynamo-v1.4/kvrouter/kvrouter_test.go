package kvrouter_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/types"

	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

func TestRequestJSONForwardsTheBodyWithTheTargetModel(t *testing.T) {
	body := fwkrh.PayloadMap{"model": "alias", "stream": true, "nvext": map[string]any{"annotations": []any{"a"}}}
	req := &fwksched.InferenceRequest{TargetModel: "qwen-v2", Body: &fwkrh.InferenceRequestBody{Payload: body}}
	got, err := kvrouter.RequestJSON(req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"qwen-v2","stream":true,"nvext":{"annotations":["a"]}}`, string(got))
	assert.Equal(t, "alias", body["model"], "the forwarded payload keeps its model; only the router's copy is overridden")

	req.TargetModel = " "
	got, err = kvrouter.RequestJSON(req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"alias","stream":true,"nvext":{"annotations":["a"]}}`, string(got))

	raw := fwkrh.RawPayload(`{"model":"m","prompt":"p"}`)
	got, err = kvrouter.RequestJSON(&fwksched.InferenceRequest{TargetModel: "t", Body: &fwkrh.InferenceRequestBody{Payload: raw}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"t","prompt":"p"}`, string(got))

	for _, req := range []*fwksched.InferenceRequest{
		nil, {}, {Body: &fwkrh.InferenceRequestBody{}},
		{Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.PayloadMap{}}},
		{RequestId: "r", Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.RawPayload("not json")}},
		{RequestId: "r", Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.RawPayload(`["an","array"]`)}},
	} {
		_, err := kvrouter.RequestJSON(req)
		require.ErrorIs(t, err, kvrouter.ErrNoBody)
	}
}

func TestPodsJSONHasDynamoFieldsAndNulls(t *testing.T) {
	updated := time.Date(2026, 8, 15, 12, 0, 0, 0, time.UTC)
	metrics := fwkdl.NewMetrics()
	metrics.RunningRequestsSize, metrics.CacheNumBlocks, metrics.KVCacheUsagePercent, metrics.UpdateTime = 2, 512, 0.5, updated
	eps := []fwksched.Endpoint{
		fwksched.NewEndpoint(&fwkdl.EndpointMetadata{
			NamespacedName: types.NamespacedName{Namespace: "ns", Name: "w-0-rank-0"}, PodName: "w-0",
			Address: "10.0.0.1", Port: "8000", MetricsHost: "10.0.0.1:9090", Labels: map[string]string{"role": "decode"},
		}, metrics, nil),
		fwksched.NewEndpoint(nil, nil, nil),
		nil,
	}
	got, err := kvrouter.PodsJSON(eps)
	require.NoError(t, err)
	assert.JSONEq(t, `[
	 {"pod":{"name":"w-0-rank-0","namespace":"ns","podName":"w-0","address":"10.0.0.1","port":"8000","metricsHost":"10.0.0.1:9090","labels":{"role":"decode"}},
	  "metrics":{"activeModels":{},"waitingModels":{},"maxActiveModels":0,"runningQueueSize":2,"waitingQueueSize":0,
	   "kvCacheUsagePercent":0.5,"kvCacheMaxTokenCapacity":0,"cacheBlockSize":0,"cacheNumGPUBlocks":512,"updateTime":"2026-08-15T12:00:00Z"}},
	 {"pod":null,"metrics":null}]`, string(got))

	got, err = kvrouter.PodsJSON(nil)
	require.NoError(t, err)
	assert.Nil(t, got, "no candidates: no filter (a null pods pointer)")
}

func TestConfigFromEnvOpensTheWorkersComponent(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	assert.Equal(t, kvrouter.Config{Namespace: "vllm-agg", Component: "backend"}, kvrouter.ConfigFromEnv(get))

	// The operator's pod environment: DYN_COMPONENT names the EPP itself.
	env["DYN_COMPONENT"] = "epp"
	env[kvrouter.EnvNamespace] = "default-qwen"
	env[kvrouter.EnvEnforceDisagg] = "true"
	assert.Equal(t, kvrouter.Config{Namespace: "default-qwen", Component: "backend"}, kvrouter.ConfigFromEnv(get))

	env[kvrouter.EnvNamespacePrefix] = "default-qwen-prefix"
	env[kvrouter.EnvWorkerComponent] = "worker"
	assert.Equal(t, kvrouter.Config{Namespace: "default-qwen-prefix", Component: "worker"}, kvrouter.ConfigFromEnv(get))

	env[kvrouter.EnvNamespacePrefix] = ""
	assert.Equal(t, "default-qwen", kvrouter.ConfigFromEnv(get).Namespace, "an empty value counts as unset")
}

func TestEnforceDisaggRequested(t *testing.T) {
	for v, want := range map[string]bool{"": false, "true": true, "ON": true, "1": true, "yes": true, "false": false, "0": false, "maybe": false} {
		assert.Equal(t, want, kvrouter.EnforceDisaggRequested(func(string) string { return v }), "%q", v)
	}
}
