package dynrouter

import "github.com/epp-build/epp-build/plugins/gaie-v1.2/envread"

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
	cfg.Namespace = envread.String(getenv, EnvNamespace, DefaultNamespace)
	var warning string
	cfg.DecodeFallback, warning = envread.Bool(getenv, EnvDecodeFallback, false)
	return cfg, warning
}
