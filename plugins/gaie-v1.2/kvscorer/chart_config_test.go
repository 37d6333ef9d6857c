package kvscorer

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/config/loader"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework/plugins/picker"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework/plugins/profile"
)

// The EndpointPickerConfig of Dynamo v0.9.1's Helm chart
// (deploy/inference-gateway/helm/dynamo-gaie/epp-config-dynamo.yaml @ebcbd61).
const chartConfig = `apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: single-profile-handler
- name: picker
  type: max-score-picker
- name: dyn-kv
  type: kv-aware-scorer
schedulingProfiles:
- name: default
  plugins:
  - pluginRef: dyn-kv
    weight: 1
  - pluginRef: picker
`

func TestDynamosChartConfigLoadsAndRoutes(t *testing.T) {
	f := newFake(Selection{DecodeWorkerID: 2, PrefillWorkerID: -1, TokenIDs: []uint32{7}})
	s := &shared{open: func(Config) (Router, error) { return f, nil }, getenv: env(map[string]string{EnvKVBlockSize: "16"})}
	// GAIE's runner registers its in-tree plugins itself.
	plugins.Register(profile.SingleProfileHandlerType, profile.SingleProfileHandlerFactory)
	plugins.Register(picker.MaxScorePickerType, picker.MaxScorePickerFactory)
	plugins.Register(Type, s.factory)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	raw, _, err := loader.LoadConfigPhaseOne([]byte(chartConfig), logr.Discard())
	require.NoError(t, err)
	cfg, err := loader.LoadConfigPhaseTwo(raw, plugins.NewEppHandle(ctx, nil), logr.Discard())
	require.NoError(t, err)
	req := chat("gw-1", map[string]string{}, user("hello"))
	res, err := scheduling.NewSchedulerWithConfig(cfg.SchedulerConfig).Schedule(ctx, req, pods(2))
	require.NoError(t, err)
	assert.Equal(t, "default", res.PrimaryProfileName)
	assert.Equal(t, "2", req.Headers[WorkerIDHeader])
	assert.Equal(t, "false", req.Headers[EnableLocalUpdatesHeader])
}
