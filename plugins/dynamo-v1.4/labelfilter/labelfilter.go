// Package labelfilter is Dynamo's label-filter plugin: it keeps the
// endpoints whose pod label has one of the given values, so a prefill or
// decode profile only sees the pods of its role. Type name, parameters,
// defaults and semantics are those of Dynamo's EPP.
package labelfilter

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// Type is the registry key, Dynamo's.
const Type = "label-filter"

// AliasType is the name earlier configs of this project used; it builds
// the same filter with the same parameters.
const AliasType = "dynamo-label-filter"

// Params select the label and the values to keep. Unknown keys are
// ignored, as Dynamo's EPP ignores them.
type Params struct {
	Label       string   `json:"label"`
	ValidValues []string `json:"validValues"`
	// AllowsNoLabel also keeps endpoints without the label (default false).
	AllowsNoLabel bool `json:"allowsNoLabel"`

	// Parameter names of this project's earlier dynamo-label-filter, named
	// in the error so an old config says what to rename.
	LegacyValues         []string `json:"values,omitempty"`
	LegacyKeepUnlabelled *bool    `json:"keepUnlabelled,omitempty"`
}

// Filter keeps the endpoints whose Label is one of ValidValues.
type Filter struct {
	name   fwkplugin.TypedName
	params Params
}

var _ fwksched.Filter = (*Filter)(nil)

// New validates params for a filter registered as typ.
func New(typ, name string, p Params) (*Filter, error) {
	if p.LegacyValues != nil || p.LegacyKeepUnlabelled != nil {
		return nil, fmt.Errorf("%s %q: parameters \"values\" and \"keepUnlabelled\" are now Dynamo's \"validValues\" and \"allowsNoLabel\": rename them", typ, name)
	}
	if p.Label == "" {
		return nil, fmt.Errorf("%s %q: parameter 'label' must not be empty (for example nvidia.com/dynamo-sub-component-type)", typ, name)
	}
	if len(p.ValidValues) == 0 {
		return nil, fmt.Errorf("%s %q: parameter 'validValues' must contain at least one value (for example [decode])", typ, name)
	}
	return &Filter{name: fwkplugin.TypedName{Type: typ, Name: name}, params: p}, nil
}

func factory(typ string) fwkplugin.FactoryFunc {
	return func(name string, raw json.RawMessage, _ fwkplugin.Handle) (fwkplugin.Plugin, error) {
		if raw == nil {
			return nil, fmt.Errorf("%s %q: parameters 'label' and 'validValues' are required", typ, name)
		}
		var p Params
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("%s %q: parameters: %w", typ, name, err)
		}
		return New(typ, name, p)
	}
}

// Factory is the registry factory of Type.
var Factory = factory(Type)

// Register adds the filter to the EPP's plugin registry under Dynamo's
// type name and this project's earlier one.
func Register() {
	fwkplugin.Register(Type, Factory)
	fwkplugin.Register(AliasType, factory(AliasType))
}

func (f *Filter) TypedName() fwkplugin.TypedName { return f.name }

// Filter keeps the matching endpoints, in order.
func (f *Filter) Filter(_ context.Context, _ *fwksched.CycleState, _ *fwksched.InferenceRequest, endpoints []fwksched.Endpoint) []fwksched.Endpoint {
	out := make([]fwksched.Endpoint, 0, len(endpoints))
	for _, ep := range endpoints {
		if ep == nil || ep.GetMetadata() == nil {
			continue
		}
		v, ok := ep.GetMetadata().Labels[f.params.Label]
		if (ok && slices.Contains(f.params.ValidValues, v)) || (!ok && f.params.AllowsNoLabel) {
			out = append(out, ep)
		}
	}
	return out
}
