// Package workerid is Dynamo v0.8.0's dynamo-inject-workerid plugin: a
// PreRequest plugin that is also a request body mutator. After scheduling
// it writes the workers the kv-aware-scorer chose into the body the EPP
// forwards (nvext.backend_instance_id, or nvext.prefill_worker_id and
// nvext.decode_worker_id when disaggregated) with the router's tokens
// (nvext.token_data), and drops the query_instance_id annotation.
package workerid

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	wid07 "github.com/epp-build/epp-build/plugins/dynamo-v0.7/workerid"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/kvscorer"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"
)

// Type is the registry key of this plugin.
const Type = wid07.Type

// Body keys the frontend reads (Option<u64> each) besides v0.7.0's.
const (
	PrefillWorkerIDKey = "prefill_worker_id"
	DecodeWorkerIDKey  = "decode_worker_id"
	annotationsKey     = "annotations"
	queryInstanceID    = "query_instance_id"
)

var _ requestcontrol.PreRequest = (*Plugin)(nil)

// Plugin is stateless; one instance serves concurrent requests.
type Plugin struct{ typedName plugins.TypedName }

// Factory is registered under Type. Like v0.7.0's, it takes no parameters.
func Factory(name string, parameters json.RawMessage, handle plugins.Handle) (plugins.Plugin, error) {
	if _, err := wid07.Factory(name, parameters, handle); err != nil {
		return nil, err
	}
	if name == "" {
		name = Type
	}
	return &Plugin{typedName: plugins.TypedName{Type: Type, Name: name}}, nil
}

// TypedName implements plugins.Plugin.
func (p *Plugin) TypedName() plugins.TypedName { return p.typedName }

// PreRequest keeps only well-formed worker ids in the headers the EPP
// forwards (Dynamo's trims them; a malformed one is dropped here).
func (p *Plugin) PreRequest(ctx context.Context, request *types.LLMRequest, _ *types.SchedulingResult, _ int) {
	if request == nil || request.Headers == nil {
		return
	}
	for _, name := range []string{kvscorer.WorkerIDHeader, kvscorer.PrefillWorkerIDHeader} {
		value, ok := request.Headers[name]
		if !ok {
			continue
		}
		id, err := bbrhints.ParseWorkerID(value)
		if err != nil {
			log.FromContext(ctx).V(logutil.DEBUG).Info("Dropping malformed Dynamo worker id", "header", name, "error", err.Error())
			delete(request.Headers, name)
			continue
		}
		request.Headers[name] = strconv.FormatUint(id, 10)
	}
}

// MutateRequestBody is called by the patched director after PreRequest with
// the body the EPP forwards. The router's tokens travel from the scorer in
// an EPP-internal header, removed here so it never leaves the EPP.
func (p *Plugin) MutateRequestBody(ctx context.Context, request *types.LLMRequest, _ *types.SchedulingResult, _ int, body map[string]any) {
	if request == nil || request.Headers == nil || body == nil {
		return
	}
	tokenHeader, hasTokens := request.Headers[kvscorer.TokenDataHeader]
	delete(request.Headers, kvscorer.TokenDataHeader)
	decode, err := bbrhints.ParseWorkerID(request.Headers[kvscorer.WorkerIDHeader])
	if err != nil {
		return
	}
	hints := bbrhints.Hints{}
	if hasTokens {
		if tokens, err := bbrhints.DecodeTokenData(tokenHeader); err == nil {
			hints.TokenData = tokens
		}
	}
	prefill, prefillErr := bbrhints.ParseWorkerID(request.Headers[kvscorer.PrefillWorkerIDHeader])
	disaggregated := prefillErr == nil && prefill != decode
	if !disaggregated {
		hints.WorkerID, hints.HasWorkerID = decode, true
	}
	hints.Inject(body)
	nvext, _ := body[bbrhints.NvextKey].(map[string]any)
	if nvext == nil {
		nvext = map[string]any{}
		body[bbrhints.NvextKey] = nvext
	}
	if disaggregated {
		nvext[PrefillWorkerIDKey] = prefill
		nvext[DecodeWorkerIDKey] = decode
	}
	dropQueryAnnotation(nvext)
	log.FromContext(ctx).V(logutil.DEBUG).Info("Wrote Dynamo workers into the request body", "decode", decode,
		"disaggregated", disaggregated, "tokens", len(hints.TokenData))
}

// dropQueryAnnotation removes "query_instance_id" from nvext.annotations
// (and the key when nothing else is left): with it the frontend would only
// answer with the chosen worker instead of generating.
func dropQueryAnnotation(nvext map[string]any) {
	list, ok := nvext[annotationsKey].([]any)
	if !ok {
		return
	}
	kept := list[:0:0]
	for _, a := range list {
		if s, isString := a.(string); !isString || strings.TrimSpace(s) != queryInstanceID {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		delete(nvext, annotationsKey)
		return
	}
	nvext[annotationsKey] = kept
}
