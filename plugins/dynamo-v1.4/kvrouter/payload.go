package kvrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// ErrNoBody is returned when a request has no JSON body to route with.
var ErrNoBody = errors.New("request has no JSON object body to route (the router needs the OpenAI request as JSON)")

// RequestJSON is the body the router tokenises: the full request body the
// gateway parsed, with "model" replaced by the request's target model
// (the model after GAIE's traffic split) when there is one, so the router
// renders the chat template of the model that will serve the request. The
// request's own payload is never modified. A raw payload holding a JSON
// object is routed the same way.
func RequestJSON(req *fwksched.InferenceRequest) ([]byte, error) {
	if req == nil || req.Body == nil || req.Body.Payload == nil {
		return nil, ErrNoBody
	}
	var body map[string]any
	switch p := req.Body.Payload.(type) {
	case fwkrh.PayloadMap:
		body = maps.Clone(map[string]any(p))
	case fwkrh.RawPayload:
		if err := json.Unmarshal(p, &body); err != nil {
			return nil, fmt.Errorf("request %s: %w", req.RequestId, ErrNoBody)
		}
	default:
		return nil, fmt.Errorf("request %s: %T payload: %w", req.RequestId, p, ErrNoBody)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("request %s: empty body: %w", req.RequestId, ErrNoBody)
	}
	if strings.TrimSpace(req.TargetModel) != "" {
		body["model"] = req.TargetModel
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode request %s body: %w", req.RequestId, err)
	}
	return b, nil
}

// endpointJSON is one candidate as the router's pod filter receives it.
// Field names, types and nulls follow what Dynamo's EPP serialises; the
// router reads pod.podName (hashed into the worker id) and ignores the
// rest.
type endpointJSON struct {
	Pod     *podJSON     `json:"pod"`
	Metrics *metricsJSON `json:"metrics"`
}

type podJSON struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	PodName     string            `json:"podName"`
	Address     string            `json:"address"`
	Port        string            `json:"port"`
	MetricsHost string            `json:"metricsHost"`
	Labels      map[string]string `json:"labels"`
}

type metricsJSON struct {
	ActiveModels            map[string]int `json:"activeModels"`
	WaitingModels           map[string]int `json:"waitingModels"`
	MaxActiveModels         int            `json:"maxActiveModels"`
	RunningQueueSize        int            `json:"runningQueueSize"`
	WaitingQueueSize        int            `json:"waitingQueueSize"`
	KVCacheUsagePercent     float64        `json:"kvCacheUsagePercent"`
	KvCacheMaxTokenCapacity int            `json:"kvCacheMaxTokenCapacity"`
	CacheBlockSize          int            `json:"cacheBlockSize"`
	CacheNumGPUBlocks       int            `json:"cacheNumGPUBlocks"`
	UpdateTime              time.Time      `json:"updateTime"`
}

// PodsJSON lists the candidate endpoints for the router's pod filter:
// [{"pod":{"name","namespace","podName","address","port","metricsHost","labels"},"metrics":{..}}],
// with null for a missing part. No candidates gives nil: no filter, as
// Dynamo's EPP passes a null pointer then. Nil endpoints are skipped.
func PodsJSON(endpoints []fwksched.Endpoint) ([]byte, error) {
	if len(endpoints) == 0 {
		return nil, nil
	}
	out := make([]endpointJSON, 0, len(endpoints))
	for _, ep := range endpoints {
		if ep == nil {
			continue
		}
		var e endpointJSON
		if m := ep.GetMetadata(); m != nil {
			e.Pod = &podJSON{
				Name: m.NamespacedName.Name, Namespace: m.NamespacedName.Namespace, PodName: m.PodName,
				Address: m.Address, Port: m.Port, MetricsHost: m.MetricsHost, Labels: m.Labels,
			}
		}
		if m := ep.GetMetrics(); m != nil {
			e.Metrics = &metricsJSON{
				ActiveModels: m.ActiveModels, WaitingModels: m.WaitingModels, MaxActiveModels: m.MaxActiveModels,
				RunningQueueSize: m.RunningRequestsSize, WaitingQueueSize: m.WaitingQueueSize,
				KVCacheUsagePercent: m.KVCacheUsagePercent, KvCacheMaxTokenCapacity: m.KvCacheMaxTokenCapacity,
				CacheBlockSize: m.CacheBlockSize, CacheNumGPUBlocks: m.CacheNumBlocks, UpdateTime: m.UpdateTime,
			}
		}
		out = append(out, e)
	}
	return json.Marshal(out)
}
