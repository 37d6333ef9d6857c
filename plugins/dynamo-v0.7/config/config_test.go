// Package config_test loads the example EndpointPickerConfig through GAIE's
// own config loader and runs a request through GAIE's director with the
// plugins it wires: scheduler, kv-aware scorer, pre-request plugin.
package config_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"hash/fnv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/kvscorer"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/workerid"
	"sigs.k8s.io/gateway-api-inference-extension/api/v1alpha2"
	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/common/config/loader"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/datastore"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/handlers"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework/plugins/picker"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework/plugins/profile"
)

//go:embed epp-config-dynamo.yaml
var exampleConfig []byte

const workers = 3

// hashRouter stands in for the C API: worker FNV-1a(request JSON) mod 3.
type hashRouter struct {
	mu     sync.Mutex
	opened kvscorer.Config
	closed bool
}

func (r *hashRouter) Select(_ context.Context, body []byte) (kvscorer.Selection, error) {
	h := fnv.New64a()
	_, _ = h.Write(body)
	return kvscorer.Selection{WorkerID: int64(h.Sum64() % workers), TokenIDs: []uint32{uint32(len(body))}}, nil
}

func (r *hashRouter) Close() error { r.mu.Lock(); r.closed = true; r.mu.Unlock(); return nil }

// handle is the plugins.Handle the runner would give (its own is unexported
// in GAIE v0.5.1).
type handle struct {
	ctx     context.Context
	mu      sync.Mutex
	plugins map[string]plugins.Plugin
}

func (h *handle) Context() context.Context { return h.ctx }
func (h *handle) Plugin(name string) plugins.Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.plugins[name]
}
func (h *handle) AddPlugin(name string, p plugins.Plugin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.plugins[name] = p
}
func (h *handle) GetAllPlugins() []plugins.Plugin {
	var out []plugins.Plugin
	for _, p := range h.GetAllPluginsWithNames() {
		out = append(out, p)
	}
	return out
}
func (h *handle) GetAllPluginsWithNames() map[string]plugins.Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]plugins.Plugin{}
	for k, v := range h.plugins {
		out[k] = v
	}
	return out
}

// register does what the patched cmd/epp/main.go does, with a Go router.
func register(router *hashRouter) {
	plugins.Register(profile.SingleProfileHandlerType, profile.SingleProfileHandlerFactory)
	plugins.Register(picker.MaxScorePickerType, picker.MaxScorePickerFactory)
	plugins.Register(workerid.Type, workerid.Factory)
	plugins.Register(kvscorer.Type, kvscorer.NewFactory(func(cfg kvscorer.Config) (kvscorer.Router, error) {
		router.opened = cfg
		return router, nil
	}))
}

func load(t *testing.T, ctx context.Context) (*handle, *scheduling.Scheduler) {
	t.Helper()
	h := &handle{ctx: ctx, plugins: map[string]plugins.Plugin{}}
	cfg, err := loader.LoadConfig(exampleConfig, h)
	require.NoError(t, err)
	schedCfg, err := loader.LoadSchedulerConfig(cfg.SchedulingProfiles, h)
	require.NoError(t, err)
	return h, scheduling.NewSchedulerWithConfig(schedCfg)
}

func TestExampleConfigLoads(t *testing.T) {
	router := &hashRouter{}
	register(router)
	ctx, cancel := context.WithCancel(context.Background())
	h, _ := load(t, ctx)

	assert.IsType(t, &workerid.Plugin{}, h.Plugin("dyn-pre"))
	assert.IsType(t, &kvscorer.Scorer{}, h.Plugin("dyn-kv"))
	assert.Equal(t, kvscorer.Config{
		Namespace: "vllm-agg", Component: "backend", Model: "Qwen/Qwen3-0.6B", KVBlockSize: 16,
		UseKVRouting: true, OverlapScoreWeight: -1, RouterTemperature: -1, BusyThreshold: -1,
		UseKVEvents: true, RouterReplicaSync: true, WorkerIDLabel: kvscorer.DefaultWorkerIDLabel,
	}, router.opened)

	cancel()
	assert.Eventually(t, func() bool { router.mu.Lock(); defer router.mu.Unlock(); return router.closed },
		10*time.Second, 5*time.Millisecond, "EPP shutdown closes the router")
}

// TestDirectorCarriesTheDecisionToTheHints runs GAIE's director end to end:
// scheduling with the kv-aware scorer picks the labelled pod of the chosen
// worker, and after the pre-request plugins the request headers (which the
// EPP forwards) carry the hints BBR turns into nvext fields.
func TestDirectorCarriesTheDecisionToTheHints(t *testing.T) {
	router := &hashRouter{}
	register(router)
	ctx := context.Background()
	h, sched := load(t, ctx)

	pmf := backendmetrics.NewPodMetricsFactory(&backendmetrics.FakePodMetricsClient{}, time.Second)
	ds := datastore.NewDatastore(t.Context(), pmf)
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	pool := &v1alpha2.InferencePool{
		ObjectMeta: metav1.ObjectMeta{Name: "pool", Namespace: "default"},
		Spec: v1alpha2.InferencePoolSpec{TargetPortNumber: 8000,
			Selector: map[v1alpha2.LabelKey]v1alpha2.LabelValue{"app": "dynamo"}},
	}
	require.NoError(t, ds.PoolSet(ctx, fake.NewClientBuilder().WithScheme(scheme).Build(), pool))
	addresses := map[string]string{}
	for i := range workers {
		name := "worker-" + string(rune('a'+i))
		addresses[itoa(i)] = "10.1.0." + itoa(i+1)
		ds.PodUpdateOrAddIfNotExist(&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default",
				Labels: map[string]string{"app": "dynamo", kvscorer.DefaultWorkerIDLabel: itoa(i)}},
			Status: corev1.PodStatus{PodIP: addresses[itoa(i)], Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}

	rcConfig := requestcontrol.NewConfig()
	rcConfig.AddPlugins(h.GetAllPlugins()...)
	director := requestcontrol.NewDirectorWithConfig(ds, sched, notSaturated{}, rcConfig)

	for _, prompt := range []string{"one", "two", "three", "four"} {
		reqCtx := &handlers.RequestContext{
			Request: &handlers.Request{
				Headers: map[string]string{"x-worker-instance-id": "1234", bbrhints.InjectWorkerIDHeader: "1234"},
				Body:    map[string]any{"model": "Qwen/Qwen3-0.6B", "prompt": prompt},
			},
		}
		reqCtx, err := director.HandleRequest(ctx, reqCtx)
		require.NoError(t, err)

		headers := reqCtx.Request.Headers
		id := headers[bbrhints.WorkerIDHeader]
		require.NotEqual(t, "1234", id, "the client's id never survives")
		assert.Equal(t, id, headers[bbrhints.InjectWorkerIDHeader])
		assert.Equal(t, addresses[id]+":8000", reqCtx.TargetEndpoint, "the chosen worker's pod is the target")

		// What BBR then does with these headers:
		var list []bbrhints.Header
		for k, v := range headers {
			list = append(list, bbrhints.Header{Key: k, Value: v})
		}
		body := map[string]any{"model": "m"}
		require.True(t, bbrhints.FromHeaders(logrDiscard(), list).Inject(body))
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		assert.JSONEq(t, `{"model":"m","nvext":{"backend_instance_id":`+id+`,"token_data":[`+
			itoa(int(firstToken(t, headers)))+`]}}`, string(raw))
	}
}

type notSaturated struct{}

func (notSaturated) IsSaturated(context.Context) bool { return false }
