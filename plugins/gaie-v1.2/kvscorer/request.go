package kvscorer

import (
	"encoding/json"

	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/chatrequest"
)

// queryRequest is the request Dynamo v0.9's scorer hands the pipeline: an
// OpenAI chat request for one token, streamed, annotated
// "query_instance_id" (the pipeline answers with the workers instead of
// generating).
type queryRequest struct {
	chatrequest.Request
	MaxTokens   int     `json:"max_tokens"`
	Temperature float64 `json:"temperature"`
	Stream      bool    `json:"stream"`
	NvExt       nvExt   `json:"nvext"`
}

type nvExt struct {
	Annotations []string `json:"annotations"`
}

// RequestJSON builds the pipeline's request with model, when the request
// names none, the configured DYNAMO_MODEL. Unlike Dynamo v0.9, which
// joins every message into one user message (the tokens the router
// matches against cached blocks then differ from the prompt the worker
// renders), the messages keep their roles, as Dynamo v1.0 does; a request
// without text is not routed (v0.9 routes the text "default prompt").
func RequestJSON(req *schedtypes.LLMRequest, model string) ([]byte, error) {
	chat, err := chatrequest.Build(req, model)
	if err != nil {
		return nil, err
	}
	return json.Marshal(queryRequest{
		Request: chat, MaxTokens: 1, Temperature: 0, Stream: true,
		NvExt: nvExt{Annotations: []string{"query_instance_id"}},
	})
}
