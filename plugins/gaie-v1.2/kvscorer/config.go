package kvscorer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/envread"
)

// Config is what Dynamo v0.9's scorer reads from its environment: the
// dynamo_llm_init and dynamo_create_worker_selection_pipeline arguments.
type Config struct {
	Namespace, Component, Model string
	KVBlockSize                 uint32
	UseKVRouting                bool
	// BusyThreshold, OverlapScoreWeight and RouterTemperature are negative
	// for "the library's default".
	BusyThreshold      float64
	OverlapScoreWeight float64
	RouterTemperature  float64
	UseKVEvents        bool
	RouterReplicaSync  bool
	EnforceDisagg      bool
}

// Environment variables of Dynamo v0.9's scorer, with their defaults.
const (
	EnvNamespace          = "DYNAMO_NAMESPACE"           // vllm-agg
	EnvComponent          = "DYNAMO_COMPONENT"           // backend
	EnvModel              = "DYNAMO_MODEL"               // Qwen/Qwen3-0.6B
	EnvKVBlockSize        = "DYNAMO_KV_BLOCK_SIZE"       // required
	EnvEnforceDisagg      = "DYN_ENFORCE_DISAGG"         // false
	EnvOverlapScoreWeight = "DYN_OVERLAP_SCORE_WEIGHT"   // -1: the library's
	EnvRouterTemperature  = "DYN_ROUTER_TEMPERATURE"     // -1: the library's
	EnvUseKVRouting       = "DYN_USE_KV_ROUTING"         // true
	EnvBusyThreshold      = "DYN_BUSY_THRESHOLD"         // -1: no busy detection
	EnvUseKVEvents        = "DYN_USE_KV_EVENTS"          // true
	EnvRouterReplicaSync  = "DYNAMO_ROUTER_REPLICA_SYNC" // false
)

// Defaults of Dynamo v0.9's scorer.
const (
	DefaultNamespace = "vllm-agg"
	DefaultComponent = "backend"
	DefaultModel     = "Qwen/Qwen3-0.6B"
)

// ConfigFromEnv reads the config through getenv as Dynamo v0.9's scorer
// does: strings default when unset or empty; booleans and numbers that do
// not parse keep their default (each such value is named in the returned
// warnings); DYNAMO_KV_BLOCK_SIZE is required, a whole number in
// [16, 8192] and a power of two, else an error.
func ConfigFromEnv(getenv func(string) string) (Config, []string, error) {
	cfg := Config{
		Namespace: envread.String(getenv, EnvNamespace, DefaultNamespace),
		Component: envread.String(getenv, EnvComponent, DefaultComponent),
		Model:     envread.String(getenv, EnvModel, DefaultModel),
	}
	var warnings []string
	boolean := func(key string, def bool) bool {
		v, w := envread.Bool(getenv, key, def)
		if w != "" {
			warnings = append(warnings, w)
		}
		return v
	}
	number := func(key string, def float64) float64 {
		v, w := envread.Float(getenv, key, def)
		if w != "" {
			warnings = append(warnings, w)
		}
		return v
	}
	cfg.EnforceDisagg = boolean(EnvEnforceDisagg, false)
	cfg.OverlapScoreWeight = number(EnvOverlapScoreWeight, -1)
	cfg.RouterTemperature = number(EnvRouterTemperature, -1)
	cfg.UseKVRouting = boolean(EnvUseKVRouting, true)
	cfg.BusyThreshold = number(EnvBusyThreshold, -1)
	cfg.UseKVEvents = boolean(EnvUseKVEvents, true)
	cfg.RouterReplicaSync = boolean(EnvRouterReplicaSync, false)

	v := strings.TrimSpace(getenv(EnvKVBlockSize))
	if v == "" {
		return Config{}, warnings, fmt.Errorf("%s is required and must match the model card's kv_cache_block_size", EnvKVBlockSize)
	}
	n, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return Config{}, warnings, fmt.Errorf("%s=%q is not a whole number", EnvKVBlockSize, v)
	}
	if n < 16 || n > 8192 || n&(n-1) != 0 {
		return Config{}, warnings, fmt.Errorf("%s=%d must be a power of two in [16, 8192]", EnvKVBlockSize, n)
	}
	cfg.KVBlockSize = uint32(n)
	return cfg, warnings, nil
}
