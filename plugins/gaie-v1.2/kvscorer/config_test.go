package kvscorer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigDefaultsAreDynamoV09s(t *testing.T) {
	cfg, warnings, err := ConfigFromEnv(env(map[string]string{EnvKVBlockSize: "16"}))
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, Config{
		Namespace: "vllm-agg", Component: "backend", Model: "Qwen/Qwen3-0.6B", KVBlockSize: 16,
		UseKVRouting: true, BusyThreshold: -1, OverlapScoreWeight: -1, RouterTemperature: -1,
		UseKVEvents: true,
	}, cfg)
}

func TestConfigReadsEveryVariable(t *testing.T) {
	cfg, warnings, err := ConfigFromEnv(env(map[string]string{
		EnvNamespace: "ns", EnvComponent: "workers", EnvModel: "llama", EnvKVBlockSize: "64",
		EnvEnforceDisagg: "yes", EnvOverlapScoreWeight: "0.5", EnvRouterTemperature: "0",
		EnvUseKVRouting: "false", EnvBusyThreshold: "0.9", EnvUseKVEvents: "off", EnvRouterReplicaSync: "1",
		"DYN_COMPONENT": "epp", "DYNAMO_WORKER_ID": "7",
	}))
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, Config{
		Namespace: "ns", Component: "workers", Model: "llama", KVBlockSize: 64,
		UseKVRouting: false, BusyThreshold: 0.9, OverlapScoreWeight: 0.5, RouterTemperature: 0,
		UseKVEvents: false, RouterReplicaSync: true, EnforceDisagg: true,
	}, cfg)
}

func TestUnparsableValuesKeepTheirDefaultsWithAWarning(t *testing.T) {
	cfg, warnings, err := ConfigFromEnv(env(map[string]string{
		EnvKVBlockSize: "32", EnvUseKVRouting: "perhaps", EnvOverlapScoreWeight: "heavy",
	}))
	require.NoError(t, err)
	assert.True(t, cfg.UseKVRouting)
	assert.Equal(t, -1.0, cfg.OverlapScoreWeight)
	assert.Len(t, warnings, 2)
}

func TestKVBlockSizeIsRequiredAndChecked(t *testing.T) {
	for _, v := range []string{"", "abc", "16abc", "8", "16384", "48", "-16"} {
		_, _, err := ConfigFromEnv(env(map[string]string{EnvKVBlockSize: v}))
		assert.Error(t, err, "%q", v)
	}
	for _, v := range []string{"16", "8192", " 128 "} {
		_, _, err := ConfigFromEnv(env(map[string]string{EnvKVBlockSize: v}))
		assert.NoError(t, err, "%q", v)
	}
}
