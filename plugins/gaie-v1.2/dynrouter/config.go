package dynrouter

import (
	"fmt"
	"strings"
)

// Config says which Dynamo router pair to open, as Dynamo v1.0's EPP
// reads it from its environment.
type Config struct {
	// Namespace is the Dynamo namespace the workers register in.
	Namespace string
	// Component is the workers' component. Dynamo v1.0's EPP always opens
	// "backend"; DYN_COMPONENT names the EPP itself and is never read.
	Component string
	// DecodeFallback lets the router route decode-only while no prefill
	// worker is registered (create_routers' third argument).
	DecodeFallback bool
}

// Environment variables of Dynamo v1.0's EPP.
const (
	EnvNamespace      = "DYN_NAMESPACE"
	EnvDecodeFallback = "DYN_DECODE_FALLBACK"
)

// Defaults of Dynamo v1.0's EPP.
const (
	DefaultNamespace = "vllm-agg"
	DefaultComponent = "backend"
)

// ConfigFromEnv reads the config through getenv (os.Getenv in the EPP, a
// map in tests) as Dynamo v1.0's EPP does: DYN_NAMESPACE, else "vllm-agg";
// DYN_DECODE_FALLBACK as a boolean, false by default. An empty value counts
// as unset. A value that is not a boolean keeps the default, as in
// Dynamo, and is named in the returned warning so it does not go unseen.
func ConfigFromEnv(getenv func(string) string) (Config, string) {
	cfg := Config{Namespace: DefaultNamespace, Component: DefaultComponent}
	if v := getenv(EnvNamespace); v != "" {
		cfg.Namespace = v
	}
	var warning string
	cfg.DecodeFallback, warning = BoolFromEnv(getenv, EnvDecodeFallback, false)
	return cfg, warning
}

// BoolFromEnv reads a boolean the way Dynamo's EPP reads its environment:
// true/1/yes/on and false/0/no/off in any case; unset or empty gives def.
// Any other value also gives def, with a warning naming it.
func BoolFromEnv(getenv func(string) string, key string, def bool) (bool, string) {
	v := getenv(key)
	switch strings.ToLower(v) {
	case "":
		return def, ""
	case "true", "1", "yes", "on":
		return true, ""
	case "false", "0", "no", "off":
		return false, ""
	}
	return def, fmt.Sprintf("%s=%q is not a boolean (true/false, 1/0, yes/no, on/off): using %t", key, v, def)
}
