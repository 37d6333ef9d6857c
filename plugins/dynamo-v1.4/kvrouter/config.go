package kvrouter

import (
	"strings"
)

// Config says which Dynamo router pair to open.
type Config struct {
	// Namespace is the Dynamo namespace the workers register in.
	Namespace string
	// Component is the workers' component, whose "generate" endpoint the
	// router discovers.
	Component string
}

// Environment variables read by ConfigFromEnv. The operator sets
// DYN_NAMESPACE and DYN_NAMESPACE_PREFIX to the graph's namespace and
// DYN_COMPONENT to "epp": DYN_COMPONENT names the EPP itself and is never
// the component the router opens.
const (
	EnvNamespacePrefix = "DYN_NAMESPACE_PREFIX"
	EnvNamespace       = "DYN_NAMESPACE"
	// EnvWorkerComponent chooses another worker component; the name is the
	// one Dynamo's Rust EPP (deploy/inference-gateway/ext-proc) reads.
	EnvWorkerComponent = "DYN_COMPONENT_NAME"
	EnvEnforceDisagg   = "DYN_ENFORCE_DISAGG"
	// Read by the router library itself, never by this package; listed so
	// the EPP can log what the router will discover on its own.
	EnvKVCacheBlockSize = "DYN_KV_CACHE_BLOCK_SIZE"
	EnvModelName        = "DYN_MODEL_NAME"
)

// Defaults of Dynamo's EPP.
const (
	DefaultNamespace = "vllm-agg"
	DefaultComponent = "backend"
)

// ConfigFromEnv reads the router config through getenv (os.Getenv in the
// EPP, a map in tests) the way Dynamo's EPP does: the namespace is
// DYN_NAMESPACE_PREFIX, else DYN_NAMESPACE, else "vllm-agg"; the component
// is "backend" unless DYN_COMPONENT_NAME names another. An empty value
// counts as unset.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		Namespace: firstSet(getenv, DefaultNamespace, EnvNamespacePrefix, EnvNamespace),
		Component: firstSet(getenv, DefaultComponent, EnvWorkerComponent),
	}
}

func firstSet(getenv func(string) string, def string, keys ...string) string {
	for _, k := range keys {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return def
}

// EnforceDisaggRequested reports whether DYN_ENFORCE_DISAGG asks for
// enforcement (true/1/yes/on, any case), so the EPP can say the variable
// is deprecated and ignored, as Dynamo's EPP does.
func EnforceDisaggRequested(getenv func(string) string) bool {
	switch strings.ToLower(getenv(EnvEnforceDisagg)) {
	case "true", "1", "yes", "on":
		return true
	}
	return false
}
