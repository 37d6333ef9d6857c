package kvscorer

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestLoadConfigEnforceDisagg(t *testing.T) {
	base := map[string]string{"DYNAMO_KV_BLOCK_SIZE": "16"}
	cfg, err := LoadConfig(nil, env(base))
	require.NoError(t, err)
	assert.False(t, cfg.EnforceDisagg, "Dynamo v0.8.0's default")
	assert.Equal(t, uint32(16), cfg.KVBlockSize)

	base[EnvEnforceDisagg] = "true"
	cfg, err = LoadConfig(json.RawMessage(`{"namespace":"ns"}`), env(base))
	require.NoError(t, err)
	assert.True(t, cfg.EnforceDisagg)
	assert.Equal(t, "ns", cfg.Namespace, "the other parameters still reach v0.7.0's loader")

	cfg, err = LoadConfig(json.RawMessage(`{"enforceDisagg":false}`), env(base))
	require.NoError(t, err)
	assert.False(t, cfg.EnforceDisagg, "the parameter wins over the variable")

	base[EnvEnforceDisagg] = "maybe"
	_, err = LoadConfig(nil, env(base))
	assert.ErrorContains(t, err, EnvEnforceDisagg)
	_, err = LoadConfig(json.RawMessage(`{"enforceDisagg":"yes"}`), env(map[string]string{"DYNAMO_KV_BLOCK_SIZE": "16"}))
	assert.ErrorContains(t, err, "enforceDisagg")
	_, err = LoadConfig(json.RawMessage(`{"enforceDisag":true}`), env(map[string]string{"DYNAMO_KV_BLOCK_SIZE": "16"}))
	assert.Error(t, err, "a misspelt parameter is refused")
}
