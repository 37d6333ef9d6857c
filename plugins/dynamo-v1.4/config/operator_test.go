package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/config/loader"
	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwkrc "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requestcontrol"
	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
	extractormetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/datalayer/extractor/metrics"
	sourcemetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/datalayer/source/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/flowcontrol/fairness/globalstrict"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/flowcontrol/ordering/fcfs"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/flowcontrol/saturationdetector/utilization"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/flowcontrol/usagelimits"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/requesthandling/parsers/openai"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/scheduling/picker/maxscore"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/register"
)

// The EndpointPickerConfigs a Dynamo v1.4 deployment hands the operator,
// which writes them, as given, into the EPP's ConfigMap
// (deploy/operator/internal/dynamo/epp/config.go). Written from Dynamo's
// graphs (docs/compat/v1.4.2.md has the sources); the verb %[1]s stands
// for the pod label the filters read, since Dynamo's graphs use two (see
// roleLabels).
const (
	// examples/backends/vllm/deploy/gaie/disagg.yaml at 039c6b65d909.
	operatorDisaggConfig = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: disagg-profile-handler
- name: prefill-filter
  parameters:
    allowsNoLabel: false
    label: %[1]s
    validValues:
    - prefill
  type: label-filter
- name: decode-filter
  parameters:
    allowsNoLabel: false
    label: %[1]s
    validValues:
    - decode
  type: label-filter
- name: picker
  type: max-score-picker
- name: dyn-prefill
  type: dyn-prefill-scorer
- name: dyn-decode
  type: dyn-decode-scorer
schedulingProfiles:
- name: prefill
  plugins:
  - pluginRef: prefill-filter
    weight: 1
  - pluginRef: dyn-prefill
    weight: 1
  - pluginRef: picker
    weight: 1
- name: decode
  plugins:
  - pluginRef: decode-filter
    weight: 1
  - pluginRef: dyn-decode
    weight: 1
  - pluginRef: picker
    weight: 1
`
	// recipes/qwen3-0.6b/vllm/agg/gaie/deploy.yaml at 2ac51ddab1f8 and
	// examples/backends/vllm/deploy/gaie/agg.yaml at 03bc19636179 (the
	// same plugins; they differ in the label only).
	operatorAggConfig = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: disagg-profile-handler
- name: decode-filter
  parameters:
    allowsNoLabel: true
    label: %[1]s
    validValues:
    - decode
  type: label-filter
- name: picker
  type: max-score-picker
- name: dyn-decode
  type: dyn-decode-scorer
schedulingProfiles:
- name: decode
  plugins:
  - pluginRef: decode-filter
    weight: 1
  - pluginRef: dyn-decode
    weight: 1
  - pluginRef: picker
    weight: 1
`
)

// roleLabels are the pod labels Dynamo's graphs filter workers on, both
// operator label keys (KubeLabelDynamoComponentType and
// KubeLabelDynamoSubComponentType in deploy/operator/internal/consts).
// The label filter takes the key from its parameters, so the plugins need
// no change for either.
var roleLabels = []string{
	// examples/backends/vllm/deploy/gaie/disagg.yaml at 039c6b65d909 and
	// agg.yaml at 03bc19636179
	"nvidia.com/dynamo-component-type",
	// recipes/qwen3-0.6b/vllm/agg/gaie/deploy.yaml at 2ac51ddab1f8
	"nvidia.com/dynamo-sub-component-type",
}

// operatorPodEnv is the environment the operator gives the EPP container
// of graph "qwen" in Kubernetes namespace "default"
// (deploy/operator/internal/dynamo/component_common.go and
// component_epp.go), plus what the example graph adds and two router knobs
// a user may set. DYN_COMPONENT names the EPP itself.
var operatorPodEnv = map[string]string{
	"DYN_NAMESPACE":                      "default-qwen",
	"DYN_NAMESPACE_PREFIX":               "default-qwen",
	"DYN_COMPONENT":                      "epp",
	"DYN_PARENT_DGD_K8S_NAME":            "qwen",
	"DYN_PARENT_DGD_K8S_NAMESPACE":       "default",
	"DYN_DISCOVERY_BACKEND":              "kubernetes",
	"DYN_ENFORCE_DISAGG":                 "false",
	"USE_STREAMING":                      "true",
	"RUST_LOG":                           "info",
	"DYN_KV_CACHE_BLOCK_SIZE":            "16",
	"DYN_MODEL_NAME":                     "Qwen/Qwen3-0.6B",
	"DYN_ROUTER_KV_OVERLAP_SCORE_CREDIT": "0.5",
	"DYN_ROUTER_PREFILL_LOAD_SCALE":      "2",
}

// spyRouter records every router the EPP opens, with the config it was
// opened with.
type spyRouter struct {
	mu      sync.Mutex
	configs []kvrouter.Config
	fake    *rt.Fake
}

func (s *spyRouter) open(cfg kvrouter.Config) (kvrouter.Router, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.configs = append(s.configs, cfg)
	return s.fake, nil
}

// registerInTreeDefaults registers the GAIE plugins the operator's configs
// name or the loader adds by default (the EPP's runner registers them
// itself before it loads the config).
func registerInTreeDefaults() {
	fwkplugin.Register(maxscore.MaxScorePickerType, maxscore.MaxScorePickerFactory)
	fwkplugin.Register(fcfs.FCFSOrderingPolicyType, fcfs.FCFSOrderingPolicyFactory)
	fwkplugin.Register(globalstrict.GlobalStrictFairnessPolicyType, globalstrict.GlobalStrictFairnessPolicyFactory)
	fwkplugin.Register(usagelimits.StaticUsageLimitPolicyType, usagelimits.StaticPolicyFactory)
	fwkplugin.Register(openai.OpenAIParserType, openai.OpenAIParserPluginFactory)
	fwkplugin.Register(utilization.UtilizationDetectorType, utilization.UtilizationDetectorFactory)
	fwkplugin.Register(sourcemetrics.MetricsDataSourceType, sourcemetrics.MetricsDataSourceFactory)
	fwkplugin.Register(extractormetrics.MetricsExtractorType, extractormetrics.CoreMetricsExtractorFactory)
}

// loadAsTheEPP registers exactly what the patched EPP's main registers
// (register.All, over spy instead of the C API), loads config with GAIE's
// loader under the operator's pod environment and returns the scheduler
// and the plugin handle.
func loadAsTheEPP(t *testing.T, config string, spy *spyRouter) (*scheduling.Scheduler, fwkplugin.Handle) {
	t.Helper()
	for k, v := range operatorPodEnv {
		t.Setenv(k, v)
	}
	env := os.Environ()
	// The router library reads DYN_ROUTER_* and the rest from the process
	// environment itself: the EPP must leave it as the operator set it.
	t.Cleanup(func() { assert.ElementsMatch(t, env, os.Environ(), "the EPP changed its environment") })
	registerInTreeDefaults()
	register.All(spy.open)

	raw, _, err := loader.LoadRawConfig([]byte(config), logr.Discard())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel() // the router closes with the handle
		spy.mu.Lock()
		opened := len(spy.configs) > 0
		spy.mu.Unlock()
		if opened {
			spy.fake.WaitFor(t, rt.OpClose, 1)
		}
	})
	handle := fwkplugin.NewEppHandle(ctx, func() []types.NamespacedName { return nil })
	cfg, err := loader.InstantiateAndConfigure(raw, handle, logr.Discard())
	require.NoError(t, err, "the EPP refuses the operator's config")
	return scheduling.NewSchedulerWithConfig(cfg.SchedulerConfig), handle
}

func pod(name, labelKey, role string) fwksched.Endpoint {
	labels := map[string]string{}
	if role != "" {
		labels[labelKey] = role
	}
	return fwksched.NewEndpoint(&fwkdl.EndpointMetadata{
		NamespacedName: types.NamespacedName{Namespace: "default", Name: name}, PodName: name,
		Address: "10.0.0.1", Port: "8000", Labels: labels,
	}, fwkdl.NewMetrics(), nil)
}

// chatRequest is a chat request as GAIE's parser hands it to scheduling,
// for the alias "qwen" that GAIE resolved to the target model below.
func chatRequest() *fwksched.InferenceRequest {
	return &fwksched.InferenceRequest{
		RequestId:   "x-request-id-from-envoy",
		TargetModel: "Qwen/Qwen3-0.6B",
		Headers: map[string]string{
			// hints a client must not be able to set
			"x-dynamo-worker-instance-id": "999", "x-dynamo-prefill-instance-id": "999",
		},
		Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.PayloadMap{
			"model":    "qwen",
			"stream":   true,
			"messages": []any{map[string]any{"role": "user", "content": "route me"}},
		}},
	}
}

func podNamesIn(t *testing.T, podsJSON string) []string {
	t.Helper()
	var pods []struct {
		Pod struct {
			PodName string `json:"podName"`
		} `json:"pod"`
	}
	require.NoError(t, json.Unmarshal([]byte(podsJSON), &pods))
	var names []string
	for _, p := range pods {
		names = append(names, p.Pod.PodName)
	}
	return names
}

// forwardedBody is the body the EPP sends on to the frontend: GAIE
// serialises the parsed payload again after scheduling. (GAIE's director
// writes the target model into the payload before scheduling; the request
// here leaves the client's alias to show the router's copy is what gets
// the target model.)
func forwardedBody(t *testing.T, req *fwksched.InferenceRequest) string {
	t.Helper()
	b, err := json.Marshal(req.Body.Payload)
	require.NoError(t, err)
	return string(b)
}

func TestOperatorDisaggregatedConfig(t *testing.T) {
	for _, key := range roleLabels {
		t.Run(key, func(t *testing.T) { testOperatorDisaggregatedConfig(t, key) })
	}
}

func testOperatorDisaggregatedConfig(t *testing.T, labelKey string) {
	spy := &spyRouter{fake: &rt.Fake{}}
	sched, handle := loadAsTheEPP(t, fmt.Sprintf(operatorDisaggConfig, labelKey), spy)

	require.Len(t, spy.configs, 1, "one router for both scorers")
	assert.Equal(t, kvrouter.Config{Namespace: "default-qwen", Component: "backend"}, spy.configs[0],
		"the router opens the workers' component, never DYN_COMPONENT=epp")

	pods := []fwksched.Endpoint{pod("prefill-0", labelKey, "prefill"), pod("decode-0", labelKey, "decode"),
		pod("decode-1", labelKey, "decode"), pod("frontend-0", labelKey, "")}
	req := chatRequest()
	res, err := sched.Schedule(context.Background(), req, pods)
	require.NoError(t, err)
	assert.Equal(t, "decode", res.PrimaryProfileName)
	require.Contains(t, res.ProfileResults, "prefill")
	assert.Equal(t, "prefill-0", res.ProfileResults["prefill"].TargetEndpoints[0].GetMetadata().PodName)
	assert.Contains(t, []string{"decode-0", "decode-1"}, res.ProfileResults["decode"].TargetEndpoints[0].GetMetadata().PodName)

	// What the router was asked: the full body with the target model, and
	// only the pods of the profile's role.
	var reserve, decode rt.Call
	for _, c := range spy.fake.Calls() {
		switch c.Op {
		case rt.OpReserve:
			reserve = c
		case rt.OpRouteDecode:
			decode = c
		}
	}
	assert.JSONEq(t, `{"model":"Qwen/Qwen3-0.6B","stream":true,"messages":[{"role":"user","content":"route me"}]}`, reserve.Request)
	assert.Equal(t, []string{"prefill-0"}, podNamesIn(t, reserve.Pods))
	assert.True(t, decode.Disaggregated)
	assert.JSONEq(t, reserve.Request, decode.Request)
	assert.Equal(t, []string{"decode-0", "decode-1"}, podNamesIn(t, decode.Pods))

	// What the routed request carries to the frontend.
	d := rt.DefaultDecision
	booking := req.Headers["x-dynamo-epp-booking-id"]
	assert.NotEmpty(t, booking)
	assert.Equal(t, map[string]string{
		"x-dynamo-epp-booking-id":      booking,
		"x-dynamo-prefill-instance-id": "3", // d.PrefillWorkerID; its dp rank is unset, so no x-dynamo-prefill-dp-rank
		"x-dynamo-worker-instance-id":  "7",
		"x-dynamo-dp-rank":             "1",
		"x-dynamo-routing-mode":        "disaggregated",
	}, req.Headers)
	assert.Equal(t, uint64(3), d.PrefillWorkerID)
	assert.JSONEq(t, `{"model":"qwen","stream":true,"messages":[{"role":"user","content":"route me"}],"nvext":{"token_data":[11,12,13]}}`,
		forwardedBody(t, req), "nvext.token_data as u32s")

	// The response: the first chunk marks prefill complete, the end of the
	// stream frees the booking.
	decoder := handle.Plugin("dyn-decode").(fwkrc.ResponseBodyProcessor)
	decoder.ResponseBody(context.Background(), req, &fwkrc.Response{RequestId: req.RequestId}, nil)
	spy.fake.WaitFor(t, rt.OpMark, 1)
	decoder.ResponseBody(context.Background(), req, &fwkrc.Response{RequestId: req.RequestId, EndOfStream: true}, nil)
	spy.fake.WaitFor(t, rt.OpFree, 1)
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpAdd, rt.OpMark, rt.OpFree}, spy.fake.Ops(booking))

}

func TestOperatorAggregatedConfig(t *testing.T) {
	for _, key := range roleLabels {
		t.Run(key, func(t *testing.T) { testOperatorAggregatedConfig(t, key) })
	}
}

func testOperatorAggregatedConfig(t *testing.T, labelKey string) {
	spy := &spyRouter{fake: &rt.Fake{}}
	sched, _ := loadAsTheEPP(t, fmt.Sprintf(operatorAggConfig, labelKey), spy)
	require.Len(t, spy.configs, 1)
	assert.Equal(t, kvrouter.Config{Namespace: "default-qwen", Component: "backend"}, spy.configs[0])

	// allowsNoLabel: the aggregated workers carry no role label.
	pods := []fwksched.Endpoint{pod("agg-0", labelKey, ""), pod("prefill-0", labelKey, "prefill")}
	req := chatRequest()
	res, err := sched.Schedule(context.Background(), req, pods)
	require.NoError(t, err)
	assert.Equal(t, "decode", res.PrimaryProfileName)
	assert.NotContains(t, res.ProfileResults, "prefill")
	assert.Equal(t, "agg-0", res.ProfileResults["decode"].TargetEndpoints[0].GetMetadata().PodName)

	assert.Zero(t, spy.fake.Count(rt.OpReserve), "no prefill reservation without a prefill profile")
	calls := spy.fake.Calls()
	require.Equal(t, rt.OpRouteDecode, calls[0].Op)
	assert.False(t, calls[0].Disaggregated)
	assert.Equal(t, []string{"agg-0"}, podNamesIn(t, calls[0].Pods))
	assert.JSONEq(t, `{"model":"Qwen/Qwen3-0.6B","stream":true,"messages":[{"role":"user","content":"route me"}]}`, calls[0].Request)

	booking := req.Headers["x-dynamo-epp-booking-id"]
	assert.Equal(t, map[string]string{
		"x-dynamo-epp-booking-id":     booking,
		"x-dynamo-worker-instance-id": "7",
		"x-dynamo-dp-rank":            "1",
		"x-dynamo-routing-mode":       "aggregated",
	}, req.Headers, "the client's prefill hint is gone")
	assert.JSONEq(t, `{"model":"qwen","stream":true,"messages":[{"role":"user","content":"route me"}],"nvext":{"token_data":[11,12,13]}}`, forwardedBody(t, req))
}
