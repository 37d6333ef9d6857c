package dynrouter

import (
	"encoding/json"
	"fmt"
	"time"

	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/chatrequest"
)

// DefaultModel is the "model" sent to the router when the request names
// none; the router tokenises with the discovered model card and only needs
// the field to be present, as in Dynamo's EPP.
const DefaultModel = "default"

// RequestJSON is the OpenAI chat request the router tokenises, built from
// what GAIE v1.2.1 parsed of the body as Dynamo's v1.0 EPP builds it (see
// chatrequest.Build), with DefaultModel when the request names none.
func RequestJSON(req *schedtypes.LLMRequest) ([]byte, error) {
	chat, err := chatrequest.Build(req, DefaultModel)
	if err != nil {
		return nil, err
	}
	return json.Marshal(chat)
}

// endpointJSON is one candidate as the router's pod filter receives it,
// with the field names, types and nulls of Dynamo's EPP; the router reads
// pod.podName and ignores the rest.
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

// PodsJSON lists the candidate pods for the router's pod filter. No
// candidates gives nil: no filter, as Dynamo's EPP passes a null pointer
// then. Nil pods are skipped. An error (a metric that JSON cannot hold) is
// returned, never turned into "no filter": routing among every worker
// could pick one outside the profile's candidates.
func PodsJSON(pods []schedtypes.Pod) ([]byte, error) {
	if len(pods) == 0 {
		return nil, nil
	}
	out := make([]endpointJSON, 0, len(pods))
	for _, p := range pods {
		if p == nil {
			continue
		}
		var e endpointJSON
		if m := p.GetPod(); m != nil {
			e.Pod = &podJSON{
				Name: m.NamespacedName.Name, Namespace: m.NamespacedName.Namespace, PodName: m.PodName,
				Address: m.Address, Port: m.Port, MetricsHost: m.MetricsHost, Labels: m.Labels,
			}
		}
		if m := p.GetMetrics(); m != nil {
			e.Metrics = &metricsJSON{
				ActiveModels: m.ActiveModels, WaitingModels: m.WaitingModels, MaxActiveModels: m.MaxActiveModels,
				RunningQueueSize: m.RunningQueueSize, WaitingQueueSize: m.WaitingQueueSize,
				KVCacheUsagePercent: m.KVCacheUsagePercent, KvCacheMaxTokenCapacity: m.KvCacheMaxTokenCapacity,
				CacheBlockSize: m.CacheBlockSize, CacheNumGPUBlocks: m.CacheNumGPUBlocks, UpdateTime: m.UpdateTime,
			}
		}
		out = append(out, e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode candidate pods for the router: %w", err)
	}
	return b, nil
}
