package kvrouter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"k8s.io/apimachinery/pkg/types"

	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

func TestRequestJSONForwardsTheBody(t *testing.T) {
	body := fwkrh.PayloadMap{"model": "m", "stream": true, "nvext": map[string]any{"annotations": []any{"a"}}}
	got, err := kvrouter.RequestJSON(&fwksched.InferenceRequest{Body: &fwkrh.InferenceRequestBody{Payload: body}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"m","stream":true,"nvext":{"annotations":["a"]}}`, string(got))

	raw := fwkrh.RawPayload(`{"model":"m","prompt":"p"}`)
	got, err = kvrouter.RequestJSON(&fwksched.InferenceRequest{Body: &fwkrh.InferenceRequestBody{Payload: raw}})
	require.NoError(t, err)
	assert.Equal(t, string(raw), string(got))

	for _, req := range []*fwksched.InferenceRequest{
		nil, {}, {Body: &fwkrh.InferenceRequestBody{}},
		{RequestId: "r", Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.RawPayload("not json")}},
	} {
		_, err := kvrouter.RequestJSON(req)
		require.ErrorIs(t, err, kvrouter.ErrNoBody)
	}
}

func TestPodsJSON(t *testing.T) {
	eps := []fwksched.Endpoint{
		fwksched.NewEndpoint(&fwkdl.EndpointMetadata{
			NamespacedName: types.NamespacedName{Namespace: "ns", Name: "w-0"},
			Address:        "10.0.0.1", Port: "8000", Labels: map[string]string{"role": "decode"},
		}, fwkdl.NewMetrics(), nil),
		fwksched.NewEndpoint(&fwkdl.EndpointMetadata{PodName: "w-1"}, fwkdl.NewMetrics(), nil),
		nil,
	}
	got, err := kvrouter.PodsJSON(eps)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"pod":{"podName":"w-0","namespace":"ns","address":"10.0.0.1","port":"8000","labels":{"role":"decode"}}},{"pod":{"podName":"w-1"}}]`, string(got))
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	_, err := kvrouter.ConfigFromEnv(get)
	require.ErrorContains(t, err, "DYN_NAMESPACE is not set")
	env[kvrouter.EnvNamespace] = " vllm-disagg "
	env[kvrouter.EnvEnforceDisagg] = "yes please"
	_, err = kvrouter.ConfigFromEnv(get)
	require.ErrorContains(t, err, `DYN_ENFORCE_DISAGG="yes please"`)
	env[kvrouter.EnvEnforceDisagg] = "true"
	env[kvrouter.EnvComponent] = "worker"
	cfg, err := kvrouter.ConfigFromEnv(get)
	require.NoError(t, err)
	assert.Equal(t, kvrouter.Config{Namespace: "vllm-disagg", Component: "worker", EnforceDisagg: true}, cfg)
}
