package kvrouter

import (
	"fmt"
	"strconv"
	"strings"
)

// Config says which Dynamo router pair to open.
type Config struct {
	// Namespace is the Dynamo namespace the workers register in (required).
	Namespace string
	// Component is the worker component; "" means the library default.
	Component string
	// EnforceDisagg makes the router refuse aggregated decode routing.
	EnforceDisagg bool
}

// Environment variables read by ConfigFromEnv.
const (
	EnvNamespace     = "DYN_NAMESPACE"
	EnvComponent     = "DYN_COMPONENT"
	EnvEnforceDisagg = "DYN_ENFORCE_DISAGG"
)

// ConfigFromEnv reads the router config through getenv (os.Getenv in the
// EPP, a map in tests), so a bad value names its variable.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Namespace: strings.TrimSpace(getenv(EnvNamespace)),
		Component: strings.TrimSpace(getenv(EnvComponent)),
	}
	if c.Namespace == "" {
		return Config{}, fmt.Errorf("%s is not set: the Dynamo namespace of the workers is required (for example %s=vllm-disagg)", EnvNamespace, EnvNamespace)
	}
	if v := strings.TrimSpace(getenv(EnvEnforceDisagg)); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return Config{}, fmt.Errorf("%s=%q: want true or false", EnvEnforceDisagg, v)
		}
		c.EnforceDisagg = b
	}
	return c, nil
}
