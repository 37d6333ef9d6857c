package disagg

import (
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

func pods(names ...string) []schedtypes.Pod {
	out := make([]schedtypes.Pod, len(names))
	for i, n := range names {
		out[i] = &schedtypes.PodMetrics{Pod: &backend.Pod{NamespacedName: k8stypes.NamespacedName{Name: n}, PodName: n}}
	}
	return out
}

func chatRequest(id string, hdr map[string]string) *schedtypes.LLMRequest {
	return &schedtypes.LLMRequest{
		RequestId: id, TargetModel: "m", Headers: hdr,
		Body: &schedtypes.LLMRequestBody{ChatCompletions: &schedtypes.ChatCompletionsRequest{
			Messages: []schedtypes.Message{{Role: "user", Content: schedtypes.Content{Raw: "hello"}}},
		}},
	}
}

func cycle(prefill bool) *schedtypes.CycleState {
	cs := schedtypes.NewCycleState()
	SetPrefillEnabled(cs, prefill)
	return cs
}
