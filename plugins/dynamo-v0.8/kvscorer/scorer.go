// Package kvscorer is Dynamo v0.8.0's kv-aware-scorer: it asks Dynamo's
// router for a decode (and, disaggregated, a prefill) worker, records them
// in the request headers the EPP forwards, hands the router's tokens to the
// dynamo-inject-workerid body mutator and registers the request with the
// router's bookkeeping.
package kvscorer

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	kv07 "github.com/epp-build/epp-build/plugins/dynamo-v0.7/kvscorer"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"
)

// Type is the registry key of this plugin.
const Type = kv07.Type

// Request headers of Dynamo v0.8.0's EPP. The prefill header carries a
// prefill worker id despite its name.
const (
	WorkerIDHeader        = bbrhints.WorkerIDHeader
	PrefillWorkerIDHeader = "x-prefiller-host-port"
	// TokenDataHeader hands the router's tokens to the body mutator of
	// dynamo-inject-workerid, which removes it: it never leaves the EPP.
	TokenDataHeader = bbrhints.InjectTokenDataHeader
)

var _ framework.Scorer = (*Scorer)(nil)

// Scorer holds one open Router; all request state lives in the request.
type Scorer struct {
	typedName plugins.TypedName
	config    Config
	router    Router
	closeOnce sync.Once
	closeErr  error
}

// New wraps an open router; the scorer owns it from now on.
func New(name string, cfg Config, router Router) *Scorer {
	if name == "" {
		name = Type
	}
	return &Scorer{typedName: plugins.TypedName{Type: Type, Name: name}, config: cfg, router: router}
}

// TypedName implements plugins.Plugin.
func (s *Scorer) TypedName() plugins.TypedName { return s.typedName }

// Config returns the resolved configuration.
func (s *Scorer) Config() Config { return s.config }

// FreeRequest removes a request from the router's bookkeeping; the
// dynamo-cleanup plugin calls it when the response arrives.
func (s *Scorer) FreeRequest(requestID string) error { return s.router.FreeRequest(requestID) }

// Close releases the router once.
func (s *Scorer) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.router.Close() })
	return s.closeErr
}

// Score asks the router for the workers and scores every pod 1, as Dynamo
// v0.8.0 does: the pods are Dynamo frontends and the choice travels in the
// body. When the router fails the request is still scheduled, with no
// worker headers (a client's copies are removed first) and an error log.
func (s *Scorer) Score(ctx context.Context, _ *types.CycleState, request *types.LLMRequest, pods []types.Pod) map[types.Pod]float64 {
	scores := make(map[types.Pod]float64, len(pods))
	for _, pod := range pods {
		scores[pod] = 1
	}
	if request == nil {
		return scores
	}
	if request.Headers == nil {
		request.Headers = map[string]string{}
	}
	for _, name := range []string{WorkerIDHeader, PrefillWorkerIDHeader, TokenDataHeader} {
		deleteHeader(request.Headers, name)
	}
	logger := log.FromContext(ctx)
	sel, err := s.selectWorkers(ctx, request)
	if err != nil {
		logger.V(logutil.DEFAULT).Error(err, "Dynamo router failed; scheduling without a worker hint", "plugin", s.typedName.Name)
		return scores
	}
	request.Headers[WorkerIDHeader] = strconv.FormatInt(sel.DecodeWorkerID, 10)
	if sel.PrefillWorkerID >= 0 {
		request.Headers[PrefillWorkerIDHeader] = strconv.FormatInt(sel.PrefillWorkerID, 10)
	}
	if len(sel.TokenIDs) > 0 {
		request.Headers[TokenDataHeader] = bbrhints.EncodeTokenData(sel.TokenIDs)
	}
	if request.RequestId != "" {
		if err := s.router.AddRequest(request.RequestId, sel.TokenIDs, uint64(sel.DecodeWorkerID), 0); err != nil {
			logger.V(logutil.DEFAULT).Error(err, "Dynamo router bookkeeping failed", "requestID", request.RequestId)
		}
	}
	logger.V(logutil.DEBUG).Info("Dynamo router chose workers", "decode", sel.DecodeWorkerID,
		"prefill", sel.PrefillWorkerID, "tokens", len(sel.TokenIDs))
	return scores
}

func (s *Scorer) selectWorkers(ctx context.Context, request *types.LLMRequest) (Selection, error) {
	body, err := kv07.RouterRequest(request, s.config.Model)
	if err != nil {
		return Selection{}, err
	}
	sel, err := s.router.Select(ctx, body)
	if err != nil {
		return Selection{}, err
	}
	if sel.DecodeWorkerID < 0 {
		return Selection{}, errNegativeWorker(sel.DecodeWorkerID)
	}
	return sel, nil
}

type errNegativeWorker int64

func (e errNegativeWorker) Error() string {
	return "router returned negative worker id " + strconv.FormatInt(int64(e), 10)
}

func deleteHeader(headers map[string]string, name string) {
	for key := range headers {
		if strings.EqualFold(key, name) {
			delete(headers, key)
		}
	}
}
