package kvscorer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Config is everything the scorer needs to open the Dynamo router and to
// map its decision onto pods. It is built by LoadConfig from the plugin's
// JSON parameters, with the DYNAMO_* environment variables Dynamo's own
// deployments set as fallbacks.
type Config struct {
	Namespace string
	Component string
	Model     string
	// KVBlockSize must equal the workers' kv_cache_block_size: a power of two
	// in [16, 8192]. Required, because a wrong value silently ruins prefix
	// matching.
	KVBlockSize  uint32
	UseKVRouting bool
	// OverlapScoreWeight, RouterTemperature and BusyThreshold take -1 for
	// "the router's default".
	OverlapScoreWeight float64
	RouterTemperature  float64
	BusyThreshold      float64
	UseKVEvents        bool
	RouterReplicaSync  bool
	// WorkerIDLabel is the pod label whose value is a Dynamo worker instance
	// id; see Scorer.Score for how it is used.
	WorkerIDLabel string
	// Ignored names the settings Dynamo's deployments pass that have no
	// effect here, with why; the factory logs them once at start-up.
	Ignored []string
}

// Parameters is the JSON form of the plugin's parameters. Pointers tell
// "not given" (fall back to the environment) from a zero value.
type Parameters struct {
	Namespace          *string  `json:"namespace,omitempty"`
	Component          *string  `json:"component,omitempty"`
	Model              *string  `json:"model,omitempty"`
	KVBlockSize        *int64   `json:"kvBlockSize,omitempty"`
	UseKVRouting       *bool    `json:"useKVRouting,omitempty"`
	OverlapScoreWeight *float64 `json:"overlapScoreWeight,omitempty"`
	RouterTemperature  *float64 `json:"routerTemperature,omitempty"`
	BusyThreshold      *float64 `json:"busyThreshold,omitempty"`
	UseKVEvents        *bool    `json:"useKVEvents,omitempty"`
	RouterReplicaSync  *bool    `json:"routerReplicaSync,omitempty"`
	WorkerIDLabel      *string  `json:"workerIDLabel,omitempty"`
	// FrontendURL and TimeoutMS are the parameters of Dynamo's HTTP scorer
	// (v0.5), which Dynamo's Helm chart still passes at v0.7.0 and v0.8.0.
	// Dynamo's cgo scorer ignores them, and so does this one.
	FrontendURL *string          `json:"frontendURL,omitempty"`
	TimeoutMS   *json.RawMessage `json:"timeoutMS,omitempty"`
}

// Environment fallbacks, named as in Dynamo's deployments.
const (
	EnvNamespace          = "DYNAMO_NAMESPACE"
	EnvComponent          = "DYNAMO_COMPONENT"
	EnvModel              = "DYNAMO_MODEL"
	EnvKVBlockSize        = "DYNAMO_KV_BLOCK_SIZE"
	EnvUseKVRouting       = "DYNAMO_USE_KV_ROUTING"
	EnvOverlapScoreWeight = "DYNAMO_OVERLAP_SCORE_WEIGHT"
	EnvRouterTemperature  = "DYNAMO_ROUTER_TEMPERATURE"
	EnvBusyThreshold      = "DYNAMO_BUSY_THRESHOLD"
	EnvUseKVEvents        = "DYNAMO_USE_KV_EVENTS"
	EnvRouterReplicaSync  = "DYNAMO_ROUTER_REPLICA_SYNC"
	// EnvWorkerID is read by Dynamo's scorer and passed to dynamo_llm_init,
	// which since v0.7.0 has no worker id parameter; see ignoredSettings.
	EnvWorkerID = "DYNAMO_WORKER_ID"
)

// Defaults match Dynamo v0.7.0's scorer so existing deployments keep their
// behaviour when they move to this plugin.
const (
	DefaultNamespace     = "vllm-agg"
	DefaultComponent     = "backend"
	DefaultModel         = "Qwen/Qwen3-0.6B"
	DefaultWorkerIDLabel = "dynamo-worker-instance-id"
	routerDefault        = -1.0
	minKVBlockSize       = 16
	maxKVBlockSize       = 8192
)

// LookupEnv is os.LookupEnv's shape, so tests can pass a map.
type LookupEnv func(key string) (string, bool)

// LoadConfig resolves the configuration: a JSON parameter wins over its
// environment variable, which wins over the default. Every invalid value is
// an error naming the parameter (and variable) and the allowed range.
func LoadConfig(raw json.RawMessage, env LookupEnv) (Config, error) {
	if env == nil {
		env = os.LookupEnv
	}
	var p Parameters
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return Config{}, fmt.Errorf("%s parameters: %w (known: namespace, component, model, kvBlockSize, useKVRouting, "+
				"overlapScoreWeight, routerTemperature, busyThreshold, useKVEvents, routerReplicaSync, workerIDLabel; "+
				"ignored: frontendURL, timeoutMS)", Type, err)
		}
	}
	r := resolver{env: env}
	cfg := Config{
		Namespace:          r.text("namespace", EnvNamespace, p.Namespace, DefaultNamespace),
		Component:          r.text("component", EnvComponent, p.Component, DefaultComponent),
		Model:              r.text("model", EnvModel, p.Model, DefaultModel),
		KVBlockSize:        r.blockSize(p.KVBlockSize),
		UseKVRouting:       r.flag("useKVRouting", EnvUseKVRouting, p.UseKVRouting, true),
		OverlapScoreWeight: r.number("overlapScoreWeight", EnvOverlapScoreWeight, p.OverlapScoreWeight, math.Inf(1)),
		RouterTemperature:  r.number("routerTemperature", EnvRouterTemperature, p.RouterTemperature, math.Inf(1)),
		BusyThreshold:      r.number("busyThreshold", EnvBusyThreshold, p.BusyThreshold, 1),
		UseKVEvents:        r.flag("useKVEvents", EnvUseKVEvents, p.UseKVEvents, true),
		RouterReplicaSync:  r.flag("routerReplicaSync", EnvRouterReplicaSync, p.RouterReplicaSync, true),
		WorkerIDLabel:      DefaultWorkerIDLabel,
		Ignored:            ignoredSettings(p, env),
	}
	if p.WorkerIDLabel != nil {
		cfg.WorkerIDLabel = strings.TrimSpace(*p.WorkerIDLabel)
	}
	if r.err != nil {
		return Config{}, r.err
	}
	return cfg, nil
}

// resolver keeps the first error so LoadConfig reads as a list of fields.
type resolver struct {
	env LookupEnv
	err error
}

func (r *resolver) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s parameters: "+format, append([]any{Type}, args...)...)
	}
}

func (r *resolver) envValue(name string) (string, bool) {
	v, ok := r.env(name)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

func (r *resolver) text(param, envName string, value *string, def string) string {
	if value != nil {
		if v := strings.TrimSpace(*value); v != "" {
			return v
		}
		r.fail("%s must not be empty", param)
		return ""
	}
	if v, ok := r.envValue(envName); ok {
		return v
	}
	return def
}

func (r *resolver) blockSize(value *int64) uint32 {
	const rangeText = "a power of two in [16, 8192] equal to the workers' kv_cache_block_size"
	var n int64
	switch env, ok := r.envValue(EnvKVBlockSize); {
	case value != nil:
		n = *value
	case ok:
		parsed, err := strconv.ParseInt(env, 10, 64)
		if err != nil {
			r.fail("kvBlockSize (from %s=%q) is not an integer; want %s", EnvKVBlockSize, env, rangeText)
			return 0
		}
		n = parsed
	default:
		r.fail("kvBlockSize is required (parameter kvBlockSize or %s); want %s", EnvKVBlockSize, rangeText)
		return 0
	}
	if n < minKVBlockSize || n > maxKVBlockSize || n&(n-1) != 0 {
		r.fail("kvBlockSize %d is invalid; want %s", n, rangeText)
		return 0
	}
	return uint32(n)
}

func (r *resolver) flag(param, envName string, value *bool, def bool) bool {
	if value != nil {
		return *value
	}
	env, ok := r.envValue(envName)
	if !ok {
		return def
	}
	switch strings.ToLower(env) {
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	r.fail("%s (from %s=%q) is not a boolean; want true or false", param, envName, env)
	return def
}

// number accepts -1 (router default) or a finite value in [0, max].
func (r *resolver) number(param, envName string, value *float64, max float64) float64 {
	from := ""
	var n float64
	switch env, ok := r.envValue(envName); {
	case value != nil:
		n = *value
	case ok:
		parsed, err := strconv.ParseFloat(env, 64)
		if err != nil {
			r.fail("%s (from %s=%q) is not a number", param, envName, env)
			return routerDefault
		}
		n, from = parsed, fmt.Sprintf(" (from %s)", envName)
	default:
		return routerDefault
	}
	if n == routerDefault {
		return n
	}
	if math.IsNaN(n) || math.IsInf(n, 0) || n < 0 || n > max {
		upper := "+inf)"
		if !math.IsInf(max, 1) {
			upper = strconv.FormatFloat(max, 'g', -1, 64) + "]"
		}
		r.fail("%s %v%s is out of range; want -1 (router default) or a finite value in [0, %s", param, n, from, upper)
		return routerDefault
	}
	return n
}

// ignoredSettings lists what Dynamo's deployments set that changes nothing
// here. DYNAMO_WORKER_ID: Dynamo's scorer passed it to a 4-parameter
// dynamo_llm_init while the v0.7.0 library takes (namespace, component,
// kv_block_size), so the library read the worker id (default 1) as its block
// size; this binding passes the real block size and has no use for it.
func ignoredSettings(p Parameters, env LookupEnv) []string {
	var out []string
	if v, ok := env(EnvWorkerID); ok && strings.TrimSpace(v) != "" {
		out = append(out, fmt.Sprintf("%s=%s is ignored: Dynamo's C API dynamo_llm_init takes no worker id since v0.7.0", EnvWorkerID, strings.TrimSpace(v)))
	}
	if p.FrontendURL != nil {
		out = append(out, "parameter frontendURL is ignored: the router is reached through the C API, not the frontend's HTTP API")
	}
	if p.TimeoutMS != nil {
		out = append(out, "parameter timeoutMS is ignored: the router is reached through the C API, not the frontend's HTTP API")
	}
	return out
}
