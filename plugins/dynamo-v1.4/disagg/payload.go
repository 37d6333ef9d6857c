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

// setTokenData writes the router's tokenisation of the prompt into the
// forwarded body as nvext.token_data, so the frontend does not tokenise it
// a second time. The EPP serialises a parsed JSON payload again after
// scheduling, so the write reaches the frontend; other payload kinds, and
// a client's nvext that is not an object, are left as they are.
func setTokenData(req *fwksched.InferenceRequest, tokens []uint32) {
	if req.Body == nil || len(tokens) == 0 {
		return
	}
	payload, ok := req.Body.Payload.(fwkrh.PayloadMap)
	if !ok {
		return
	}
	nvext, isObject := payload[nvextKey].(map[string]any)
	if !isObject {
		if _, present := payload[nvextKey]; present {
			return
		}
		nvext = map[string]any{}
		payload[nvextKey] = nvext
	}
	nvext[tokenDataKey] = append([]uint32(nil), tokens...)
}
