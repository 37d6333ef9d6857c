package dynrouter

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/chatrequest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigFromEnvAsDynamosEPP(t *testing.T) {
	cfg, warning := ConfigFromEnv(env(nil))
	assert.Equal(t, Config{Namespace: "vllm-agg", Component: "backend"}, cfg)
	assert.Empty(t, warning)

	cfg, warning = ConfigFromEnv(env(map[string]string{EnvNamespace: "ns1", EnvRoutersFlag: "On", "DYN_COMPONENT": "epp"}))
	assert.Equal(t, Config{Namespace: "ns1", Component: "backend", RoutersFlag: true}, cfg)
	assert.Empty(t, warning)

	cfg, warning = ConfigFromEnv(env(map[string]string{EnvRoutersFlag: "maybe"}))
	assert.False(t, cfg.RoutersFlag)
	assert.Contains(t, warning, EnvRoutersFlag+`="maybe"`)
}

// The namespace variables of the line, first set wins: DYN_NAMESPACE
// alone on v1.0, the operator's DYN_NAMESPACE_PREFIX before it on v1.1.
func TestConfigFromEnvTakesTheFirstNamespaceSet(t *testing.T) {
	require.Equal(t, EnvNamespace, namespaceVars[len(namespaceVars)-1])
	set := map[string]string{}
	for i := len(namespaceVars) - 1; i >= 0; i-- {
		set[namespaceVars[i]] = "ns-" + namespaceVars[i]
		cfg, _ := ConfigFromEnv(env(set))
		assert.Equal(t, "ns-"+namespaceVars[i], cfg.Namespace)
	}
}

func chat(msgs ...schedtypes.Message) *schedtypes.LLMRequest {
	return &schedtypes.LLMRequest{RequestId: "r", Body: &schedtypes.LLMRequestBody{ChatCompletions: &schedtypes.ChatCompletionsRequest{Messages: msgs}}}
}

func TestRequestJSONBuildsTheChatRequestTheRouterTokenises(t *testing.T) {
	req := chat(
		schedtypes.Message{Role: "system", Content: schedtypes.Content{Raw: "be brief"}},
		schedtypes.Message{Role: "user", Content: schedtypes.Content{Structured: []schedtypes.ContentBlock{{Type: "text", Text: "hi"}, {Type: "image_url"}}}},
	)
	req.TargetModel = "llama"
	b, err := RequestJSON(req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"llama","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi "}]}`, string(b))

	req = &schedtypes.LLMRequest{Body: &schedtypes.LLMRequestBody{Completions: &schedtypes.CompletionsRequest{Prompt: "once"}}}
	b, err = RequestJSON(req)
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"default","messages":[{"role":"user","content":"once"}]}`, string(b))
}

func TestRequestJSONRefusesRequestsWithoutText(t *testing.T) {
	for _, req := range []*schedtypes.LLMRequest{
		nil,
		{},
		chat(),
		chat(schedtypes.Message{Role: "user", Content: schedtypes.Content{Raw: "  "}}),
		{Body: &schedtypes.LLMRequestBody{Completions: &schedtypes.CompletionsRequest{Prompt: " \n"}}},
	} {
		_, err := RequestJSON(req)
		assert.ErrorIs(t, err, chatrequest.ErrNoPrompt)
	}
}

func TestPodsJSONHasDynamosFieldNames(t *testing.T) {
	b, err := PodsJSON(nil)
	require.NoError(t, err)
	assert.Nil(t, b)

	pods := []schedtypes.Pod{
		&schedtypes.PodMetrics{
			Pod: &backend.Pod{NamespacedName: k8stypes.NamespacedName{Name: "n", Namespace: "ns"}, PodName: "pod-1",
				Address: "10.0.0.1", Port: "8000", MetricsHost: "10.0.0.1:8000", Labels: map[string]string{"a": "b"}},
			MetricsState: &backendmetrics.MetricsState{RunningQueueSize: 2, WaitingQueueSize: 3, KVCacheUsagePercent: 0.5, CacheNumGPUBlocks: 7},
		},
		&schedtypes.PodMetrics{},
		nil,
	}
	b, err = PodsJSON(pods)
	require.NoError(t, err)
	var got []map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	require.Len(t, got, 2)
	pod := got[0]["pod"].(map[string]any)
	assert.Equal(t, "pod-1", pod["podName"])
	assert.Equal(t, "8000", pod["port"])
	assert.Equal(t, "ns", pod["namespace"])
	m := got[0]["metrics"].(map[string]any)
	assert.EqualValues(t, 2, m["runningQueueSize"])
	assert.EqualValues(t, 7, m["cacheNumGPUBlocks"])
	assert.EqualValues(t, 0.5, m["kvCacheUsagePercent"])
	assert.Nil(t, got[1]["pod"])
	assert.Nil(t, got[1]["metrics"])

	_, err = PodsJSON([]schedtypes.Pod{&schedtypes.PodMetrics{MetricsState: &backendmetrics.MetricsState{KVCacheUsagePercent: math.NaN()}}})
	assert.Error(t, err, "a metric JSON cannot hold is an error, never an unfiltered route")
}
