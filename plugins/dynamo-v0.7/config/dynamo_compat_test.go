package config_test

import (
	"context"
	"encoding/json"
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
	"sigs.k8s.io/gateway-api-inference-extension/api/v1alpha2"
	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/common/config/loader"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/datastore"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/handlers"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling"
)

// dynamoHelmConfig is the EndpointPickerConfig Dynamo v0.7.0 deploys: the
// ConfigMap of its Helm chart embeds
// deploy/inference-gateway/helm/dynamo-gaie/epp-config-dynamo.yaml
// (ai-dynamo/dynamo@f49d6873e417ef82090ed492ef00b6939bd5a8d0), whose
// kv-aware-scorer still carries the HTTP scorer's parameters.
const dynamoHelmConfig = `
apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
  - type: single-profile-handler
  - name: picker
    type: max-score-picker
  - name: dyn-pre
    type: dynamo-inject-workerid
    parameters: {}
  - name: dyn-kv
    type: kv-aware-scorer
    parameters:
      frontendURL: http://127.0.0.1:8000/v1/chat/completions
      timeoutMS: 10000
schedulingProfiles:
  - name: default
    plugins:
      - pluginRef: dyn-kv
        weight: 1
      - pluginRef: picker
`

// dynamoHelmEnv is the EPP container's environment in the same chart
// (templates/dynamo-epp.yaml, epp.useDynamo=true, defaults of values.yaml:
// release namespace my-model, DGD vllm-agg, kvBlockSize "16"), plus
// DYNAMO_WORKER_ID, which Dynamo's scorer reads.
var dynamoHelmEnv = map[string]string{
	"ETCD_ENDPOINTS":             "dynamo-platform-etcd.my-model:2379",
	"NATS_SERVER":                "nats://dynamo-platform-nats.my-model:4222",
	"DYNAMO_NAMESPACE":           "my-model-vllm-agg",
	"DYNAMO_KV_BLOCK_SIZE":       "16",
	"DYNAMO_ROUTER_REPLICA_SYNC": "true",
	"USE_STREAMING":              "true",
	"DYNAMO_WORKER_ID":           "3",
}

// TestDynamoDeploymentRoutesLikeDynamo loads Dynamo's own config, under
// Dynamo's own pod environment, through GAIE's loader with the plugins the
// patched main registers, routes requests through GAIE's director, and
// follows each routed request's headers through BBR into the body the
// frontend parses: nvext.backend_instance_id a JSON number (Option<u64>)
// and nvext.token_data an array of u32 (Option<Vec<u32>>).
func TestDynamoDeploymentRoutesLikeDynamo(t *testing.T) {
	for k, v := range dynamoHelmEnv {
		t.Setenv(k, v)
	}
	for _, k := range []string{"DYNAMO_COMPONENT", "DYNAMO_MODEL", "DYNAMO_USE_KV_ROUTING", "DYNAMO_OVERLAP_SCORE_WEIGHT",
		"DYNAMO_ROUTER_TEMPERATURE", "DYNAMO_BUSY_THRESHOLD", "DYNAMO_USE_KV_EVENTS"} {
		t.Setenv(k, "")
	}
	router := &hashRouter{}
	register(router)
	ctx := context.Background()
	h := &handle{ctx: ctx, plugins: map[string]plugins.Plugin{}}
	cfg, err := loader.LoadConfig([]byte(dynamoHelmConfig), h)
	require.NoError(t, err, "Dynamo's own config must load")
	schedCfg, err := loader.LoadSchedulerConfig(cfg.SchedulingProfiles, h)
	require.NoError(t, err)

	// Dynamo v0.7.0's defaults and the chart's values reach the router.
	assert.Equal(t, kvscorer.Config{
		Namespace: "my-model-vllm-agg", Component: "backend", Model: "Qwen/Qwen3-0.6B", KVBlockSize: 16,
		UseKVRouting: true, OverlapScoreWeight: -1, RouterTemperature: -1, BusyThreshold: -1,
		UseKVEvents: true, RouterReplicaSync: true, WorkerIDLabel: kvscorer.DefaultWorkerIDLabel,
	}, withoutIgnored(router.opened))
	assert.Len(t, router.opened.Ignored, 3, "DYNAMO_WORKER_ID, frontendURL and timeoutMS are reported as having no effect")

	director := directorFor(t, ctx, h, scheduling.NewSchedulerWithConfig(schedCfg))
	for _, prompt := range []string{"alpha", "beta", "gamma"} {
		reqCtx := &handlers.RequestContext{Request: &handlers.Request{
			Headers: map[string]string{"x-request-id": prompt},
			Body:    map[string]any{"model": "Qwen/Qwen3-0.6B", "prompt": prompt},
		}}
		reqCtx, err := director.HandleRequest(ctx, reqCtx)
		require.NoError(t, err)
		headers := reqCtx.Request.Headers
		id := headers[bbrhints.WorkerIDHeader]
		require.NotEmpty(t, id, "the EPP forwards x-worker-instance-id")
		assert.Equal(t, id, headers[bbrhints.InjectWorkerIDHeader])

		var list []bbrhints.Header
		for k, v := range headers {
			list = append(list, bbrhints.Header{Key: k, RawValue: []byte(v)})
		}
		hints := bbrhints.FromHeaders(logrDiscard(), list)
		body := map[string]any{"model": "Qwen/Qwen3-0.6B", "prompt": prompt}
		require.True(t, hints.Inject(body))
		raw, err := json.Marshal(body)
		require.NoError(t, err)

		var frontend struct {
			Nvext struct {
				BackendInstanceID *uint64  `json:"backend_instance_id"`
				TokenData         []uint32 `json:"token_data"`
			} `json:"nvext"`
		}
		require.NoError(t, json.Unmarshal(raw, &frontend), "the frontend's types parse the body: %s", raw)
		require.NotNil(t, frontend.Nvext.BackendInstanceID)
		assert.Equal(t, id, itoa(int(*frontend.Nvext.BackendInstanceID)))
		assert.Equal(t, []uint32{firstToken(t, headers)}, frontend.Nvext.TokenData)

		mutation := hints.HeaderMutations(raw)
		assert.Equal(t, bbrhints.WorkerIDHeader, mutation[len(mutation)-1].GetHeader().GetKey())
		assert.Equal(t, id, string(mutation[len(mutation)-1].GetHeader().GetRawValue()))
	}
}

func withoutIgnored(c kvscorer.Config) kvscorer.Config {
	c.Ignored = nil
	return c
}

// directorFor is GAIE's director over a pool of three ready pods that
// carry no worker label (Dynamo's pool: frontends).
func directorFor(t *testing.T, ctx context.Context, h *handle, sched *scheduling.Scheduler) *requestcontrol.Director {
	t.Helper()
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
	for i := range workers {
		ds.PodUpdateOrAddIfNotExist(&corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "frontend-" + itoa(i), Namespace: "default", Labels: map[string]string{"app": "dynamo"}},
			Status: corev1.PodStatus{PodIP: "10.2.0." + itoa(i+1), Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}
	rcConfig := requestcontrol.NewConfig()
	rcConfig.AddPlugins(h.GetAllPlugins()...)
	return requestcontrol.NewDirectorWithConfig(ds, sched, notSaturated{}, rcConfig)
}
