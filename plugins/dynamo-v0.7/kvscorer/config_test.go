package kvscorer

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestLoadConfigDefaultsAndEnvFallback(t *testing.T) {
	cfg, err := LoadConfig(nil, envOf(map[string]string{EnvKVBlockSize: "64"}))
	require.NoError(t, err)
	assert.Equal(t, Config{
		Namespace: DefaultNamespace, Component: DefaultComponent, Model: DefaultModel,
		KVBlockSize: 64, UseKVRouting: true,
		OverlapScoreWeight: -1, RouterTemperature: -1, BusyThreshold: -1,
		UseKVEvents: true, RouterReplicaSync: true, WorkerIDLabel: DefaultWorkerIDLabel,
	}, cfg)

	cfg, err = LoadConfig(json.RawMessage("null"), envOf(map[string]string{
		EnvNamespace: "ns", EnvComponent: "comp", EnvModel: "m", EnvKVBlockSize: " 8192 ",
		EnvUseKVRouting: "false", EnvOverlapScoreWeight: "0.5", EnvRouterTemperature: "0",
		EnvBusyThreshold: "0.9", EnvUseKVEvents: "off", EnvRouterReplicaSync: "0",
	}))
	require.NoError(t, err)
	assert.Equal(t, Config{
		Namespace: "ns", Component: "comp", Model: "m", KVBlockSize: 8192,
		OverlapScoreWeight: 0.5, RouterTemperature: 0, BusyThreshold: 0.9,
		WorkerIDLabel: DefaultWorkerIDLabel,
	}, cfg)
}

func TestLoadConfigParametersWinOverEnv(t *testing.T) {
	params := `{"namespace":"p-ns","component":"p-comp","model":"p-model","kvBlockSize":16,
		"useKVRouting":false,"overlapScoreWeight":2,"routerTemperature":-1,"busyThreshold":1,
		"useKVEvents":false,"routerReplicaSync":false,"workerIDLabel":" pod-worker "}`
	cfg, err := LoadConfig(json.RawMessage(params), envOf(map[string]string{
		EnvNamespace: "e-ns", EnvKVBlockSize: "not-even-a-number", EnvUseKVRouting: "garbage",
		EnvOverlapScoreWeight: "-7",
	}))
	require.NoError(t, err, "env values that a parameter overrides are not read")
	assert.Equal(t, Config{
		Namespace: "p-ns", Component: "p-comp", Model: "p-model", KVBlockSize: 16,
		OverlapScoreWeight: 2, RouterTemperature: -1, BusyThreshold: 1,
		WorkerIDLabel: "pod-worker",
	}, cfg)
}

func TestLoadConfigRejects(t *testing.T) {
	cases := []struct {
		name, params string
		env          map[string]string
		wantInError  []string
	}{
		{"block size missing", `{}`, nil, []string{"kvBlockSize is required", EnvKVBlockSize, "[16, 8192]"}},
		{"block size not a power of two", `{"kvBlockSize":48}`, nil, []string{"kvBlockSize 48", "power of two in [16, 8192]"}},
		{"block size too small", `{"kvBlockSize":8}`, nil, []string{"kvBlockSize 8"}},
		{"block size too large", `{"kvBlockSize":16384}`, nil, []string{"kvBlockSize 16384"}},
		{"block size zero", `{"kvBlockSize":0}`, nil, []string{"kvBlockSize 0"}},
		{"block size env not integer", `{}`, map[string]string{EnvKVBlockSize: "32k"}, []string{EnvKVBlockSize, `"32k"`}},
		{"block size env not power of two", `{}`, map[string]string{EnvKVBlockSize: "100"}, []string{"kvBlockSize 100"}},
		{"block size wrong JSON type", `{"kvBlockSize":"64"}`, nil, []string{"kvBlockSize"}},
		{"unknown parameter", `{"kvBlockSize":64,"blockSize":64}`, nil, []string{`unknown field "blockSize"`, "known: namespace"}},
		{"not an object", `[1]`, nil, []string{Type + " parameters"}},
		{"empty model", `{"kvBlockSize":64,"model":" "}`, nil, []string{"model must not be empty"}},
		{"negative weight", `{"kvBlockSize":64,"overlapScoreWeight":-0.5}`, nil, []string{"overlapScoreWeight -0.5", "-1 (router default) or a finite value in [0, +inf)"}},
		{"busy threshold above one", `{"kvBlockSize":64,"busyThreshold":1.5}`, nil, []string{"busyThreshold 1.5", "[0, 1]"}},
		{"temperature env not a number", `{"kvBlockSize":64}`, map[string]string{EnvRouterTemperature: "hot"}, []string{"routerTemperature", EnvRouterTemperature, `"hot"`}},
		{"weight env out of range", `{"kvBlockSize":64}`, map[string]string{EnvOverlapScoreWeight: "-2"}, []string{"overlapScoreWeight -2", EnvOverlapScoreWeight}},
		{"weight env infinite", `{"kvBlockSize":64}`, map[string]string{EnvOverlapScoreWeight: "+Inf"}, []string{"overlapScoreWeight"}},
		{"bool env garbage", `{"kvBlockSize":64}`, map[string]string{EnvUseKVEvents: "maybe"}, []string{"useKVEvents", EnvUseKVEvents, "true or false"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { _, err = LoadConfig(json.RawMessage(tc.params), envOf(tc.env)) })
			require.Error(t, err)
			for _, want := range tc.wantInError {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestLoadConfigAcceptsWhatDynamoDeploys checks the settings Dynamo's own
// deployment passes and its scorer ignores are accepted and reported, not
// refused: the Helm chart's frontendURL/timeoutMS parameters, and
// DYNAMO_WORKER_ID, which must never reach the library as a block size.
func TestLoadConfigAcceptsWhatDynamoDeploys(t *testing.T) {
	cfg, err := LoadConfig(json.RawMessage(`{"frontendURL":"http://127.0.0.1:8000/v1/chat/completions","timeoutMS":10000}`),
		envOf(map[string]string{EnvKVBlockSize: "16", EnvWorkerID: "7"}))
	require.NoError(t, err)
	assert.Equal(t, uint32(16), cfg.KVBlockSize, "the block size comes from DYNAMO_KV_BLOCK_SIZE, never from DYNAMO_WORKER_ID")
	require.Len(t, cfg.Ignored, 3)
	assert.Contains(t, cfg.Ignored[0], "DYNAMO_WORKER_ID=7 is ignored")
	assert.Contains(t, cfg.Ignored[1], "frontendURL is ignored")
	assert.Contains(t, cfg.Ignored[2], "timeoutMS is ignored")
}
