package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/config/loader"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework/plugins/picker"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/disagg"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
	"github.com/epp-build/epp-build/plugins/gaie-v1.2/register"
)

// The two configs of Dynamo v1.0.1's graphs, with the role label as a
// placeholder: examples/backends/vllm/deploy/gaie/agg.yaml (aggregated)
// and recipes/llama-3-70b/vllm/disagg-single-node/gaie/deploy.yaml
// (disaggregated), both at the v1.0.1 tag (5534a9df6d37). Both filter on
// nvidia.com/dynamo-sub-component-type; the operator also labels pods
// with nvidia.com/dynamo-component-type, so both keys are tested.
const (
	aggregated = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: disagg-profile-handler
- name: decode-filter
  type: label-filter
  parameters:
    label: "LABEL"
    validValues: ["decode"]
    allowsNoLabel: true
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
	disaggregated = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: disagg-profile-handler
- name: prefill-filter
  type: label-filter
  parameters:
    label: "LABEL"
    validValues: ["prefill"]
    allowsNoLabel: false
- name: decode-filter
  type: label-filter
  parameters:
    label: "LABEL"
    validValues: ["decode"]
    allowsNoLabel: false
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
)

var roleLabels = []string{"nvidia.com/dynamo-sub-component-type", "nvidia.com/dynamo-component-type"}

// recordingRouter stands in for the library: it answers with fixed
// workers and records the pod names each routing call was given.
type recordingRouter struct {
	mu     sync.Mutex
	routed map[string][]string // "prefill"/"decode" -> pod names
	added  []string
}

func (r *recordingRouter) note(kind string, pods []byte) error {
	var eps []struct {
		Pod struct {
			PodName string `json:"podName"`
		} `json:"pod"`
	}
	if err := json.Unmarshal(pods, &eps); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range eps {
		r.routed[kind] = append(r.routed[kind], e.Pod.PodName)
	}
	return nil
}

func (r *recordingRouter) RoutePrefill(_ context.Context, _, pods []byte) (dynrouter.Decision, error) {
	return dynrouter.Decision{PrefillWorkerID: 101, TokenIDs: []uint32{1}}, r.note("prefill", pods)
}

func (r *recordingRouter) RouteDecode(_ context.Context, _, pods []byte, _ bool) (dynrouter.Decision, error) {
	return dynrouter.Decision{DecodeWorkerID: 202, TokenIDs: []uint32{1}}, r.note("decode", pods)
}

func (r *recordingRouter) AddRequest(id string, _ []uint32, worker uint64, _ uint32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.added = append(r.added, fmt.Sprintf("%s@%d", id, worker))
	return nil
}

func (*recordingRouter) MarkPrefillComplete(string) error { return nil }
func (*recordingRouter) FreeRequest(string) error         { return nil }
func (*recordingRouter) Close() error                     { return nil }

var (
	registerOnce sync.Once
	current      *recordingRouter
	opened       []dynrouter.Config
	openMu       sync.Mutex
)

// newRouter makes the router the next config load opens.
func newRouter() *recordingRouter {
	registerOnce.Do(func() {
		// GAIE's runner registers its in-tree plugins itself; the configs
		// use its max-score-picker.
		plugins.Register(picker.MaxScorePickerType, picker.MaxScorePickerFactory)
		register.V10(func(cfg dynrouter.Config) (dynrouter.Router, error) {
			openMu.Lock()
			defer openMu.Unlock()
			opened = append(opened, cfg)
			return current, nil
		})
	})
	openMu.Lock()
	defer openMu.Unlock()
	current = &recordingRouter{routed: map[string][]string{}}
	return current
}

func pods(label string) []schedtypes.Pod {
	var out []schedtypes.Pod
	for _, p := range []struct{ name, role string }{{"prefill-0", "prefill"}, {"decode-0", "decode"}, {"decode-1", "decode"}} {
		out = append(out, &schedtypes.PodMetrics{
			Pod:          &backend.Pod{NamespacedName: k8stypes.NamespacedName{Name: p.name, Namespace: "ns"}, PodName: p.name, Labels: map[string]string{label: p.role}},
			MetricsState: backendmetrics.NewMetricsState(),
		})
	}
	return out
}

func load(t *testing.T, ctx context.Context, cfg string) *scheduling.Scheduler {
	t.Helper()
	raw, _, err := loader.LoadConfigPhaseOne([]byte(cfg), logr.Discard())
	require.NoError(t, err)
	loaded, err := loader.LoadConfigPhaseTwo(raw, plugins.NewEppHandle(ctx, nil), logr.Discard())
	require.NoError(t, err)
	return scheduling.NewSchedulerWithConfig(loaded.SchedulerConfig)
}

func request() *schedtypes.LLMRequest {
	return &schedtypes.LLMRequest{RequestId: "gw-1", TargetModel: "qwen", Headers: map[string]string{},
		Body: &schedtypes.LLMRequestBody{ChatCompletions: &schedtypes.ChatCompletionsRequest{
			Messages: []schedtypes.Message{{Role: "user", Content: schedtypes.Content{Raw: "hello"}}},
		}}}
}

func TestDynamosDisaggregatedConfigRoutesPrefillAndDecode(t *testing.T) {
	for _, label := range roleLabels {
		t.Run(label, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := newRouter()
			s := load(t, ctx, strings.ReplaceAll(disaggregated, "LABEL", label))
			req := request()
			res, err := s.Schedule(ctx, req, pods(label))
			require.NoError(t, err)
			assert.Equal(t, disagg.DecodeProfile, res.PrimaryProfileName)
			assert.Equal(t, []string{"prefill-0"}, r.routed["prefill"], "the prefill router only sees prefill pods")
			assert.Equal(t, []string{"decode-0", "decode-1"}, r.routed["decode"], "the decode router only sees decode pods")
			assert.Equal(t, "101", req.Headers[disagg.PrefillWorkerIDHeader])
			assert.Equal(t, "202", req.Headers[disagg.WorkerIDHeader])
			assert.Equal(t, disagg.ModeDisaggregated, req.Headers[disagg.RoutingModeHeader])
		})
	}
}

func TestDynamosAggregatedConfigRoutesDecodeOnly(t *testing.T) {
	for _, label := range roleLabels {
		t.Run(label, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := newRouter()
			s := load(t, ctx, strings.ReplaceAll(aggregated, "LABEL", label))
			req := request()
			req.Headers[disagg.PrefillWorkerIDHeader] = "7" // a client's: dropped
			res, err := s.Schedule(ctx, req, pods(label))
			require.NoError(t, err)
			assert.Equal(t, disagg.DecodeProfile, res.PrimaryProfileName)
			assert.Empty(t, r.routed["prefill"])
			assert.Equal(t, []string{"decode-0", "decode-1"}, r.routed["decode"])
			assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader)
			assert.Equal(t, "202", req.Headers[disagg.WorkerIDHeader])
			assert.Equal(t, disagg.ModeAggregated, req.Headers[disagg.RoutingModeHeader])
		})
	}
}

// The router is opened once per config load, on the workers' component,
// from the operator's environment (DYN_COMPONENT=epp is the EPP's own).
func TestTheRouterOpensOnTheWorkersComponent(t *testing.T) {
	t.Setenv("DYN_NAMESPACE", "ns-graph")
	t.Setenv("DYN_COMPONENT", "epp")
	t.Setenv(dynrouter.EnvRoutersFlag, "true")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	newRouter()
	openMu.Lock()
	before := len(opened)
	openMu.Unlock()
	load(t, ctx, strings.ReplaceAll(disaggregated, "LABEL", roleLabels[0]))
	openMu.Lock()
	defer openMu.Unlock()
	require.Len(t, opened, before+1)
	assert.Equal(t, dynrouter.Config{Namespace: "ns-graph", Component: "backend", RoutersFlag: true}, opened[before])
}
