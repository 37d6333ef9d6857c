// Package cleanup is Dynamo v0.8.0's dynamo-cleanup plugin: when the
// response to a request arrives (GAIE v0.5.1's PostResponse), it removes the
// request from the router's bookkeeping, where the kv-aware-scorer
// registered it.
package cleanup

import (
	"context"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/kvscorer"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"
)

// Type is the registry key of this plugin.
const Type = "dynamo-cleanup"

var _ requestcontrol.PostResponse = (*Plugin)(nil)

// Freer is what the plugin needs from a scorer: kvscorer.Scorer.
type Freer interface {
	FreeRequest(requestID string) error
}

var _ Freer = (*kvscorer.Scorer)(nil)

// Plugin finds the scorers through the plugin handle when a response
// arrives, so it does not depend on the order plugins are configured in.
type Plugin struct {
	typedName plugins.TypedName
	handle    plugins.HandlePlugins
}

// Factory is registered under Type. Like Dynamo's, it takes no parameters
// (anything given is ignored).
func Factory(name string, _ json.RawMessage, handle plugins.Handle) (plugins.Plugin, error) {
	if handle == nil {
		return nil, fmt.Errorf("%s %q: no plugin handle to find the kv-aware-scorer through", Type, name)
	}
	if name == "" {
		name = Type
	}
	return &Plugin{typedName: plugins.TypedName{Type: Type, Name: name}, handle: handle}, nil
}

// TypedName implements plugins.Plugin.
func (p *Plugin) TypedName() plugins.TypedName { return p.typedName }

// PostResponse frees the request in every scorer's router (an id a router
// does not hold is freed without error).
func (p *Plugin) PostResponse(ctx context.Context, request *types.LLMRequest, _ *requestcontrol.Response, _ *backend.Pod) {
	if request == nil || request.RequestId == "" {
		return
	}
	logger := log.FromContext(ctx)
	for _, plugin := range p.handle.GetAllPlugins() {
		freer, ok := plugin.(Freer)
		if !ok {
			continue
		}
		if err := freer.FreeRequest(request.RequestId); err != nil {
			logger.V(logutil.DEFAULT).Error(err, "Dynamo router could not free the request", "requestID", request.RequestId)
		}
	}
}
