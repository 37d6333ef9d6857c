// Package config_test deploys the v0.8.0 EPP as Dynamo v0.8.0 does: its
// configs through GAIE v0.5.1's loader, with the plugins the patched main
// registers, under the environment Dynamo's Helm chart sets, and checks
// what a routed request carries to the frontend.
package config_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/cleanup"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/kvscorer"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/workerid"
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

// Dynamo v0.8.0 (ai-dynamo/dynamo@115531a0c0bf58ff12df7ef7e69082d50fd4d707)
// ships two configs: the one its patch adds
// (pkg/epp/scheduling/plugins/dynamo_kv_scorer/epp-config-dynamo.yaml in
// deploy/inference-gateway/epp-patches/v0.8.0/gaie.patch) and the one its
// Helm chart's ConfigMap embeds
// (deploy/inference-gateway/helm/dynamo-gaie/epp-config-dynamo.yaml), which
// has no dynamo-cleanup and still passes the HTTP scorer's parameters.
const (
	dynamoPatchConfig = `
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
  - name: dyn-cleanup
    type: dynamo-cleanup
schedulingProfiles:
  - name: default
    plugins:
      - pluginRef: dyn-kv
        weight: 1
      - pluginRef: picker
`
	dynamoHelmConfig = `
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
)

// dynamoHelmEnv is the EPP container's environment in the chart
// (templates/dynamo-epp.yaml, epp.useDynamo=true, values.yaml defaults).
var dynamoHelmEnv = map[string]string{
	"ETCD_ENDPOINTS":             "dynamo-platform-etcd.my-model:2379",
	"NATS_SERVER":                "nats://dynamo-platform-nats.my-model:4222",
	"DYNAMO_NAMESPACE":           "my-model-vllm-agg",
	"DYNAMO_KV_BLOCK_SIZE":       "16",
	"DYNAMO_ROUTER_REPLICA_SYNC": "true",
	"USE_STREAMING":              "true",
}

// register does what the patched cmd/epp/main.go does, with a Go router.
func register(router *hashRouter) {
	plugins.Register(profile.SingleProfileHandlerType, profile.SingleProfileHandlerFactory)
	plugins.Register(picker.MaxScorePickerType, picker.MaxScorePickerFactory)
	plugins.Register(workerid.Type, workerid.Factory)
	plugins.Register(kvscorer.Type, kvscorer.NewFactory(func(cfg kvscorer.Config) (kvscorer.Router, error) {
		router.opened, router.disagg = cfg, cfg.EnforceDisagg
		return router, nil
	}))
	plugins.Register(cleanup.Type, cleanup.Factory)
}

type frontendNvext struct {
	BackendInstanceID *uint64  `json:"backend_instance_id"`
	PrefillWorkerID   *uint64  `json:"prefill_worker_id"`
	DecodeWorkerID    *uint64  `json:"decode_worker_id"`
	TokenData         []uint32 `json:"token_data"`
	Annotations       []string `json:"annotations"`
}

func TestDynamoDeploymentsRouteLikeDynamo(t *testing.T) {
	cases := []struct {
		name, config string
		disagg       bool
		cleanup      bool
	}{
		{"patch config, aggregated", dynamoPatchConfig, false, true},
		{"patch config, DYNAMO_ENFORCE_DISAGG", dynamoPatchConfig, true, true},
		{"helm config", dynamoHelmConfig, false, false},
		{"example config", string(exampleConfig), false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range dynamoHelmEnv {
				t.Setenv(k, v)
			}
			t.Setenv(kvscorer.EnvEnforceDisagg, strconv.FormatBool(tc.disagg))
			router := &hashRouter{added: map[string]uint64{}}
			register(router)
			ctx, cancel := context.WithCancel(context.Background())
			h := &handle{ctx: ctx, plugins: map[string]plugins.Plugin{}}
			cfg, err := loader.LoadConfig([]byte(tc.config), h)
			require.NoError(t, err, "Dynamo's own config must load")
			schedCfg, err := loader.LoadSchedulerConfig(cfg.SchedulingProfiles, h)
			require.NoError(t, err)
			assert.Equal(t, "my-model-vllm-agg", router.opened.Namespace)
			assert.Equal(t, "backend", router.opened.Component)
			assert.Equal(t, uint32(16), router.opened.KVBlockSize)
			assert.Equal(t, tc.disagg, router.opened.EnforceDisagg)

			director := directorFor(t, ctx, h, scheduling.NewSchedulerWithConfig(schedCfg))
			for _, prompt := range []string{"alpha", "beta", "gamma"} {
				reqCtx := &handlers.RequestContext{Request: &handlers.Request{
					Headers: map[string]string{"x-request-id": "id-" + prompt, kvscorer.PrefillWorkerIDHeader: "99"},
					Body: map[string]any{"model": "Qwen/Qwen3-0.6B", "prompt": prompt,
						"nvext": map[string]any{"annotations": []any{"query_instance_id", "timing"}}},
				}}
				reqCtx, err := director.HandleRequest(ctx, reqCtx)
				require.NoError(t, err)
				mutateBody(ctx, h, reqCtx)

				headers := reqCtx.Request.Headers
				decode, err := strconv.ParseUint(headers[kvscorer.WorkerIDHeader], 10, 64)
				require.NoError(t, err, "x-worker-instance-id is forwarded")
				assert.NotContains(t, headers, kvscorer.TokenDataHeader, "the token carrier never leaves the EPP")

				raw, err := json.Marshal(reqCtx.Request.Body)
				require.NoError(t, err)
				var body struct {
					Nvext frontendNvext `json:"nvext"`
				}
				require.NoError(t, json.Unmarshal(raw, &body), "the frontend's types parse the body: %s", raw)
				assert.Equal(t, []string{"timing"}, body.Nvext.Annotations, "query_instance_id is dropped")
				require.Len(t, body.Nvext.TokenData, 2)
				assert.Equal(t, uint32(4294967295), body.Nvext.TokenData[1])
				if tc.disagg {
					prefill := (decode + 1) % workers
					assert.Equal(t, strconv.FormatUint(prefill, 10), headers[kvscorer.PrefillWorkerIDHeader])
					require.NotNil(t, body.Nvext.PrefillWorkerID)
					require.NotNil(t, body.Nvext.DecodeWorkerID)
					assert.Equal(t, prefill, *body.Nvext.PrefillWorkerID)
					assert.Equal(t, decode, *body.Nvext.DecodeWorkerID)
					assert.Nil(t, body.Nvext.BackendInstanceID)
				} else {
					assert.NotContains(t, headers, kvscorer.PrefillWorkerIDHeader, "a client's prefill header is removed")
					require.NotNil(t, body.Nvext.BackendInstanceID)
					assert.Equal(t, decode, *body.Nvext.BackendInstanceID)
					assert.Nil(t, body.Nvext.PrefillWorkerID)
				}
				assert.Equal(t, decode, router.added["id-"+prompt], "the request is registered on the decode worker")

				reqCtx.Response = &handlers.Response{Headers: map[string]string{}}
				_, err = director.HandleResponse(ctx, reqCtx)
				require.NoError(t, err)
			}
			if tc.cleanup {
				assert.Equal(t, []string{"id-alpha", "id-beta", "id-gamma"}, router.freed, "dynamo-cleanup frees each request on its response")
			} else {
				assert.Empty(t, router.freed, "without dynamo-cleanup nothing frees, as in Dynamo's chart")
			}
			cancel()
			assert.Eventually(t, func() bool { router.mu.Lock(); defer router.mu.Unlock(); return router.closed },
				10*time.Second, 5*time.Millisecond, "EPP shutdown closes the router")
		})
	}
}

// mutateBody does what the patched director does after the pre-request
// plugins; in the patched tree the director has already done it, and a
// second pass changes nothing.
func mutateBody(ctx context.Context, h *handle, reqCtx *handlers.RequestContext) {
	for _, p := range h.GetAllPlugins() {
		if m, ok := p.(bodyMutator); ok {
			m.MutateRequestBody(ctx, reqCtx.SchedulingRequest, nil, 8000, reqCtx.Request.Body)
		}
	}
}

// directorFor is GAIE's director over three ready frontend pods.
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
			ObjectMeta: metav1.ObjectMeta{Name: "frontend-" + strconv.Itoa(i), Namespace: "default", Labels: map[string]string{"app": "dynamo"}},
			Status: corev1.PodStatus{PodIP: "10.3.0." + strconv.Itoa(i+1), Phase: corev1.PodRunning,
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		})
	}
	rcConfig := requestcontrol.NewConfig()
	rcConfig.AddPlugins(h.GetAllPlugins()...)
	return requestcontrol.NewDirectorWithConfig(ds, sched, notSaturated{}, rcConfig)
}

type notSaturated struct{}

func (notSaturated) IsSaturated(context.Context) bool { return false }
