// Package labelfilter is Dynamo v1.0's label-filter plugin on GAIE v1.2.1:
// it keeps the pods whose label has one of the given values, so a prefill
// or decode profile only sees the pods of its role. Type name, parameters
// and semantics are those of Dynamo's EPP.
package labelfilter

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

// Type is the registry key, Dynamo's.
const Type = "label-filter"

// Params select the label and the values to keep. Unknown keys are
// ignored, as Dynamo's EPP ignores them.
type Params struct {
	Label       string   `json:"label"`
	ValidValues []string `json:"validValues"`
	// AllowsNoLabel also keeps pods without the label (default false).
	AllowsNoLabel bool `json:"allowsNoLabel"`
}

// Filter keeps the pods whose Label is one of ValidValues.
type Filter struct {
	name   plugins.TypedName
	params Params
}

var _ framework.Filter = (*Filter)(nil)

// New validates params: a label and at least one value are required.
func New(name string, p Params) (*Filter, error) {
	if p.Label == "" {
		return nil, fmt.Errorf("%s %q: parameter 'label' must not be empty (for example nvidia.com/dynamo-sub-component-type)", Type, name)
	}
	if len(p.ValidValues) == 0 {
		return nil, fmt.Errorf("%s %q: parameter 'validValues' must contain at least one value (for example [decode])", Type, name)
	}
	return &Filter{name: plugins.TypedName{Type: Type, Name: name}, params: p}, nil
}

// Factory is the registry factory of Type; parameters are required.
func Factory(name string, raw json.RawMessage, _ plugins.Handle) (plugins.Plugin, error) {
	if raw == nil {
		return nil, fmt.Errorf("%s %q: parameters 'label' and 'validValues' are required", Type, name)
	}
	var p Params
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s %q: parameters: %w", Type, name, err)
	}
	return New(name, p)
}

// Register adds the filter to the EPP's plugin registry.
func Register() { plugins.Register(Type, Factory) }

func (f *Filter) TypedName() plugins.TypedName { return f.name }

// Filter keeps the matching pods, in order; pods without metadata are
// dropped.
func (f *Filter) Filter(_ context.Context, _ *schedtypes.CycleState, _ *schedtypes.LLMRequest, pods []schedtypes.Pod) []schedtypes.Pod {
	out := make([]schedtypes.Pod, 0, len(pods))
	for _, p := range pods {
		if p == nil || p.GetPod() == nil {
			continue
		}
		v, ok := p.GetPod().Labels[f.params.Label]
		if (ok && slices.Contains(f.params.ValidValues, v)) || (!ok && f.params.AllowsNoLabel) {
			out = append(out, p)
		}
	}
	return out
}
