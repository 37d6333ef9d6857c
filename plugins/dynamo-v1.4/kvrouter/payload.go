package kvrouter

import (
	"encoding/json"
	"errors"
	"fmt"

	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// ErrNoBody is returned when a request has no JSON body to route with.
var ErrNoBody = errors.New("request has no JSON body to route (the router needs the OpenAI request as JSON)")

// RequestJSON is the body the gateway forwarded, as the router reads it:
// the parsed JSON payload re-encoded, or the raw bytes when the parser kept
// them. The router tokenises it itself, so nothing is synthesised here.
func RequestJSON(req *fwksched.InferenceRequest) ([]byte, error) {
	if req == nil || req.Body == nil || req.Body.Payload == nil {
		return nil, ErrNoBody
	}
	switch p := req.Body.Payload.(type) {
	case fwkrh.PayloadMap:
		b, err := json.Marshal(map[string]any(p))
		if err != nil {
			return nil, fmt.Errorf("encode request %s body: %w", req.RequestId, err)
		}
		return b, nil
	case fwkrh.RawPayload:
		if !json.Valid(p) {
			return nil, fmt.Errorf("request %s: %w", req.RequestId, ErrNoBody)
		}
		return []byte(p), nil
	default:
		return nil, fmt.Errorf("request %s: %T payload: %w", req.RequestId, p, ErrNoBody)
	}
}

type podJSON struct {
	Pod podInfo `json:"pod"`
}

type podInfo struct {
	Name      string            `json:"podName"`
	Namespace string            `json:"namespace,omitempty"`
	Address   string            `json:"address,omitempty"`
	Port      string            `json:"port,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// PodsJSON lists the candidate endpoints for the router's pod filter:
// [{"pod":{"podName":..,"namespace":..,"address":..,"port":..,"labels":{..}}}].
// Endpoints without metadata are skipped.
func PodsJSON(endpoints []fwksched.Endpoint) ([]byte, error) {
	pods := make([]podJSON, 0, len(endpoints))
	for _, ep := range endpoints {
		if ep == nil || ep.GetMetadata() == nil {
			continue
		}
		m := ep.GetMetadata()
		name := m.PodName
		if name == "" {
			name = m.NamespacedName.Name
		}
		pods = append(pods, podJSON{Pod: podInfo{
			Name: name, Namespace: m.NamespacedName.Namespace,
			Address: m.Address, Port: m.Port, Labels: m.Labels,
		}})
	}
	return json.Marshal(pods)
}
