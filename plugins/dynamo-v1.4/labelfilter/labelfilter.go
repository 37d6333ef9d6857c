// Package labelfilter is the dynamo-label-filter plugin: it keeps the
// endpoints whose pod label has one of the given values, so a prefill or
// decode profile only sees the pods of its role.
package labelfilter

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// Type is the registry key.
const Type = "dynamo-label-filter"

// Params select the label and the values to keep.
type Params struct {
	Label  string   `json:"label"`
	Values []string `json:"values"`
	// KeepUnlabelled also keeps endpoints without the label.
	KeepUnlabelled bool `json:"keepUnlabelled"`
}

// Filter keeps the endpoints whose Label is one of Values.
type Filter struct {
	name   fwkplugin.TypedName
	params Params
}

var _ fwksched.Filter = (*Filter)(nil)

// New validates params.
func New(name string, p Params) (*Filter, error) {
	if p.Label == "" || len(p.Values) == 0 {
		return nil, fmt.Errorf("%s %q: label and values are required (for example {\"label\":\"nvidia.com/dynamo-sub-component-type\",\"values\":[\"prefill\"]})", Type, name)
	}
	if name == "" {
		name = Type
	}
	return &Filter{name: fwkplugin.TypedName{Type: Type, Name: name}, params: p}, nil
}

// Factory is the registry factory.
func Factory(name string, raw json.RawMessage, _ fwkplugin.Handle) (fwkplugin.Plugin, error) {
	var p Params
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s %q: parameters: %w", Type, name, err)
	}
	return New(name, p)
}

// Register adds the filter to the EPP's plugin registry.
func Register() { fwkplugin.Register(Type, Factory) }

func (f *Filter) TypedName() fwkplugin.TypedName { return f.name }

// Filter keeps the matching endpoints, in order.
func (f *Filter) Filter(_ context.Context, _ *fwksched.CycleState, _ *fwksched.InferenceRequest, endpoints []fwksched.Endpoint) []fwksched.Endpoint {
	out := make([]fwksched.Endpoint, 0, len(endpoints))
	for _, ep := range endpoints {
		if ep == nil || ep.GetMetadata() == nil {
			continue
		}
		v, ok := ep.GetMetadata().Labels[f.params.Label]
		if (ok && slices.Contains(f.params.Values, v)) || (!ok && f.params.KeepUnlabelled) {
			out = append(out, ep)
		}
	}
	return out
}
