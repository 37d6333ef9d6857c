package dynrouter

import "github.com/epp-build/epp-build/plugins/gaie-v1.2/envread"

// Config says which Dynamo router pair to open, as Dynamo's EPP reads it
// from its environment.
type Config struct {
	// Namespace is the Dynamo namespace the workers register in.
	Namespace string
	// Component is the workers' component. Dynamo's EPP always opens
	// "backend"; DYN_COMPONENT names the EPP itself and is never read.
	Component string
	// RoutersFlag is create_routers' third argument, read from
	// EnvRoutersFlag: decode_fallback in Dynamo v1.0's C API (route
	// decode-only while no prefill worker is registered), enforce_disagg
	// in v1.1's (refuse to route without one).
	RoutersFlag bool
}

// EnvNamespace is the namespace variable every line reads; a line may
// read others before it (namespaceVars).
const EnvNamespace = "DYN_NAMESPACE"

// Defaults of Dynamo's EPP.
const (
	DefaultNamespace = "vllm-agg"
	DefaultComponent = "backend"
)

// ConfigFromEnv reads the config through getenv (os.Getenv in the EPP, a
// map in tests) as Dynamo's EPP does: the first set of namespaceVars, else
// "vllm-agg"; EnvRoutersFlag as a boolean, false by default. An empty
// value counts as unset. A value that is not a boolean keeps the default,
// as in Dynamo, and is named in the returned warning so it does not go
// unseen.
func ConfigFromEnv(getenv func(string) string) (Config, string) {
	cfg := Config{Namespace: DefaultNamespace, Component: DefaultComponent}
	for i := len(namespaceVars) - 1; i >= 0; i-- {
		cfg.Namespace = envread.String(getenv, namespaceVars[i], cfg.Namespace)
	}
	var warning string
	cfg.RoutersFlag, warning = envread.Bool(getenv, EnvRoutersFlag, false)
	return cfg, warning
}
