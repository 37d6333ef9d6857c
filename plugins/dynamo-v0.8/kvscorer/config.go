package kvscorer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	kv07 "github.com/epp-build/epp-build/plugins/dynamo-v0.7/kvscorer"
)

// Config is v0.7.0's configuration plus the one setting Dynamo v0.8.0 adds.
type Config struct {
	kv07.Config
	// EnforceDisagg makes the router fail a request when disaggregated
	// serving is unavailable instead of serving it aggregated.
	EnforceDisagg bool
}

// EnvEnforceDisagg is read by Dynamo v0.8.0's scorer (default false).
const EnvEnforceDisagg = "DYNAMO_ENFORCE_DISAGG"

const enforceDisaggParam = "enforceDisagg"

// LoadConfig resolves the parameters and DYNAMO_* variables as v0.7.0's
// scorer does (same names, defaults and checks), plus enforceDisagg /
// DYNAMO_ENFORCE_DISAGG.
func LoadConfig(raw json.RawMessage, env kv07.LookupEnv) (Config, error) {
	if env == nil {
		env = os.LookupEnv
	}
	rest, param, err := splitEnforceDisagg(raw)
	if err != nil {
		return Config{}, err
	}
	base, err := kv07.LoadConfig(rest, env)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Config: base}
	switch v, ok := env(EnvEnforceDisagg); {
	case param != nil:
		cfg.EnforceDisagg = *param
	case ok && strings.TrimSpace(v) != "":
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "true", "yes", "on":
			cfg.EnforceDisagg = true
		case "0", "false", "no", "off":
		default:
			return Config{}, fmt.Errorf("%s parameters: %s (from %s=%q) is not a boolean; want true or false",
				Type, enforceDisaggParam, EnvEnforceDisagg, v)
		}
	}
	return cfg, nil
}

// splitEnforceDisagg takes enforceDisagg out of the parameter object so the
// rest goes through v0.7.0's strict decoder.
func splitEnforceDisagg(raw json.RawMessage) (json.RawMessage, *bool, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return raw, nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return raw, nil, nil // v0.7.0's decoder reports it
	}
	value, ok := fields[enforceDisaggParam]
	if !ok {
		return raw, nil, nil
	}
	var flag bool
	if err := json.Unmarshal(value, &flag); err != nil {
		return nil, nil, fmt.Errorf("%s parameters: %s must be true or false: %w", Type, enforceDisaggParam, err)
	}
	delete(fields, enforceDisaggParam)
	rest, err := json.Marshal(fields)
	if err != nil {
		return nil, nil, err
	}
	return rest, &flag, nil
}
