package dynrouter

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

// ErrNoPrompt is returned when a request has nothing the router can
// tokenise: no chat message with text and no completions prompt.
var ErrNoPrompt = errors.New("request has no chat message text and no prompt to route with")

// DefaultModel is the "model" sent to the router when the request names
// none; the router tokenises with the discovered model card and only needs
// the field to be present, as in Dynamo's EPP.
const DefaultModel = "default"

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type routerRequest struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages"`
}

// RequestJSON is the OpenAI chat request the router tokenises, built from
// what GAIE v1.2.1 parsed of the body as Dynamo's v0.9/v1.0 EPP builds it:
// the chat messages with their text (structured content joined as GAIE's
// PlainText does), or a completions prompt as one user message, and
// "model" set to the request's target model. A chat request whose messages
// have no text at all, or a prompt of only white space, is refused.
func RequestJSON(req *schedtypes.LLMRequest) ([]byte, error) {
	if req == nil || req.Body == nil {
		return nil, ErrNoPrompt
	}
	out := routerRequest{Model: req.TargetModel}
	if strings.TrimSpace(out.Model) == "" {
		out.Model = DefaultModel
	}
	switch body := req.Body; {
	case body.ChatCompletions != nil && len(body.ChatCompletions.Messages) > 0:
		text := false
		for _, m := range body.ChatCompletions.Messages {
			c := m.Content.PlainText()
			text = text || strings.TrimSpace(c) != ""
			out.Messages = append(out.Messages, message{Role: m.Role, Content: c})
		}
		if !text {
			return nil, fmt.Errorf("request %s: chat messages have no text: %w", req.RequestId, ErrNoPrompt)
		}
	case body.Completions != nil && strings.TrimSpace(body.Completions.Prompt) != "":
		out.Messages = []message{{Role: "user", Content: body.Completions.Prompt}}
	default:
		return nil, fmt.Errorf("request %s: %w", req.RequestId, ErrNoPrompt)
	}
	return json.Marshal(out)
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
