// Package workerid is the dynamo-inject-workerid PreRequest plugin. After
// scheduling it takes the worker id the kv-aware scorer put in the request
// headers, checks it, and sets the hint headers the Body Based Router turns
// into nvext fields of the request body.
package workerid

import (
	"context"
	"encoding/json"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"
)

// Type is the registry key of this plugin.
const Type = "dynamo-inject-workerid"

var _ requestcontrol.PreRequest = (*Plugin)(nil)

// Plugin is stateless: every decision is made from the request it is given,
// so one instance serves concurrent requests safely.
type Plugin struct {
	typedName plugins.TypedName
}

// New returns the plugin under the given instance name.
func New(name string) *Plugin {
	if name == "" {
		name = Type
	}
	return &Plugin{typedName: plugins.TypedName{Type: Type, Name: name}}
}

// Factory is the plugins.FactoryFunc registered under Type. The plugin takes
// no parameters; anything but an empty object is refused so a typo in the
// config does not pass silently.
func Factory(name string, parameters json.RawMessage, _ plugins.Handle) (plugins.Plugin, error) {
	if err := checkNoParameters(parameters); err != nil {
		return nil, err
	}
	return New(name), nil
}

// TypedName implements plugins.Plugin.
func (p *Plugin) TypedName() plugins.TypedName { return p.typedName }

// PreRequest normalises the worker id header and sets the BBR hint headers.
// A missing or malformed id removes any stale hint instead of failing the
// request: the frontend then routes on its own.
func (p *Plugin) PreRequest(ctx context.Context, request *types.LLMRequest, _ *types.SchedulingResult, _ int) {
	if request == nil {
		return
	}
	if request.Headers == nil {
		request.Headers = map[string]string{}
	}
	headers := request.Headers
	value, found := takeHeader(headers, bbrhints.WorkerIDHeader)
	// Hints only ever come from this plugin: drop whatever a client sent.
	takeHeader(headers, bbrhints.InjectWorkerIDHeader)
	tokenData, hasTokenData := takeHeader(headers, bbrhints.InjectTokenDataHeader)
	if !found {
		return
	}
	id, err := bbrhints.ParseWorkerID(value)
	if err != nil {
		log.FromContext(ctx).V(logutil.DEBUG).Info("Dropping malformed Dynamo worker id", "header", bbrhints.WorkerIDHeader, "error", err.Error())
		return
	}
	canonical := formatID(id)
	headers[bbrhints.WorkerIDHeader] = canonical
	headers[bbrhints.InjectWorkerIDHeader] = canonical
	// Token data only makes sense for the worker it was computed for, so it
	// travels only together with a valid worker id.
	if hasTokenData {
		if trimmed := strings.TrimSpace(tokenData); trimmed != "" {
			headers[bbrhints.InjectTokenDataHeader] = trimmed
		}
	}
}

// takeHeader removes every case variant of name from headers and returns the
// first non-empty value (Envoy lowercases names, but tests and other
// plugins may not).
func takeHeader(headers map[string]string, name string) (string, bool) {
	var value string
	found := false
	for key, v := range headers {
		if !strings.EqualFold(key, name) {
			continue
		}
		delete(headers, key)
		if !found || (strings.TrimSpace(value) == "" && strings.TrimSpace(v) != "") {
			value = v
		}
		found = true
	}
	return value, found
}
