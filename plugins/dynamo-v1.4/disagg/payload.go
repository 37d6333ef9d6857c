package disagg

import (
	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// Body keys the Dynamo frontend reads.
const (
	nvextKey     = "nvext"
	tokenDataKey = "token_data"
)

// setTokenData hands the router's tokenisation of the prompt on, as
// Dynamo's EPP does: to the plugins after scheduling as the request's
// TokenizedPrompt (setTokenizedPrompt), and to the frontend as nvext.token_data (a JSON array
// of u32, as the frontend parses it) so it does not tokenise a second
// time. The EPP serialises a parsed JSON payload again after scheduling,
// so the write reaches the frontend; an nvext that is not an object
// (null included) is replaced by one. Raw payloads are left as they are.
func setTokenData(req *fwksched.InferenceRequest, tokens []uint32) {
	if req.Body == nil || len(tokens) == 0 {
		return
	}
	setTokenizedPrompt(req, tokens)
	payload, ok := req.Body.Payload.(fwkrh.PayloadMap)
	if !ok {
		return
	}
	nvext, isObject := payload[nvextKey].(map[string]any)
	if !isObject {
		nvext = map[string]any{}
		payload[nvextKey] = nvext
	}
	nvext[tokenDataKey] = append([]uint32(nil), tokens...)
}
