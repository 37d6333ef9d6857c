// Package kvscorer is the kv-aware-scorer plugin: it asks Dynamo's KV-aware
// router (through its C API) which worker should serve a request, records
// the answer for the rest of the request path, and scores the pods.
package kvscorer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"
)

// Type is the registry key of this plugin.
const Type = "kv-aware-scorer"

var _ framework.Scorer = (*Scorer)(nil)

// Scorer holds one open Router. It is safe for concurrent use: all request
// state lives in the request, the cycle state and locals.
type Scorer struct {
	typedName plugins.TypedName
	config    Config
	router    Router
	closeOnce sync.Once
	closeErr  error
}

// New wraps an open router. The scorer owns it from now on: Close closes it.
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

// Close releases the router once; later Score calls see the router's
// closed error and fall back to equal scores.
func (s *Scorer) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.router.Close() })
	return s.closeErr
}

// Score asks the router for a worker and scores the candidates.
//
// How a Dynamo worker maps to a pod: the worker instance id is a Dynamo
// runtime id, not a pod name or address. In the usual deployment the pool's
// pods are Dynamo frontends, and any frontend forwards a request to the
// worker named in nvext.backend_instance_id (which BBR writes from the
// headers set here). So: a pod whose WorkerIDLabel label equals the worker
// id scores 1 and the others 0; when no candidate carries a matching label,
// every pod scores 1 and the choice travels only in the headers.
//
// When the router fails, the request is still scheduled: every pod scores
// 1, no hint is set, and the error is logged.
func (s *Scorer) Score(ctx context.Context, cycle *types.CycleState, request *types.LLMRequest, pods []types.Pod) map[types.Pod]float64 {
	logger := log.FromContext(ctx)
	if request != nil {
		if request.Headers == nil {
			request.Headers = map[string]string{}
		}
		// A client must not steer routing: only the router's answer counts.
		deleteHeader(request.Headers, bbrhints.WorkerIDHeader)
		deleteHeader(request.Headers, bbrhints.InjectTokenDataHeader)
	}

	selection, err := s.selectWorker(ctx, request)
	if err != nil {
		logger.V(logutil.DEFAULT).Error(err, "Dynamo router failed; scheduling without a worker hint", "plugin", s.typedName.Name)
		return equalScores(pods)
	}
	workerID := strconv.FormatInt(selection.WorkerID, 10)
	request.Headers[bbrhints.WorkerIDHeader] = workerID
	if len(selection.TokenIDs) > 0 {
		request.Headers[bbrhints.InjectTokenDataHeader] = bbrhints.EncodeTokenData(selection.TokenIDs)
	}
	if cycle != nil {
		cycle.Write(DecisionKey, &Decision{WorkerID: selection.WorkerID, TokenIDs: selection.TokenIDs})
	}
	scores, matched := s.scoreByWorker(pods, workerID)
	logger.V(logutil.DEBUG).Info("Dynamo router chose a worker", "workerID", workerID,
		"tokens", len(selection.TokenIDs), "podsMatchingWorker", matched)
	return scores
}

func (s *Scorer) selectWorker(ctx context.Context, request *types.LLMRequest) (Selection, error) {
	if request == nil {
		return Selection{}, fmt.Errorf("no request to route")
	}
	body, err := RouterRequest(request, s.config.Model)
	if err != nil {
		return Selection{}, err
	}
	selection, err := s.router.Select(ctx, body)
	if err != nil {
		return Selection{}, fmt.Errorf("select worker for request %q: %w", request.RequestId, err)
	}
	if selection.WorkerID < 0 {
		return Selection{}, fmt.Errorf("select worker for request %q: router returned negative worker id %d", request.RequestId, selection.WorkerID)
	}
	return selection, nil
}

// RouterRequest builds the chat request the pipeline routes on. GAIE v0.5.1
// hands scorers only the flattened prompt, not the body, so the prompt
// becomes the single user message; the model is the request's target model,
// else defaultModel. The query_instance_id annotation asks the pipeline to
// route and annotate only, not to generate.
func RouterRequest(request *types.LLMRequest, defaultModel string) ([]byte, error) {
	model := request.TargetModel
	if model == "" {
		model = defaultModel
	}
	body := map[string]any{
		"model":      model,
		"messages":   []map[string]string{{"role": "user", "content": request.Prompt}},
		"stream":     true,
		"max_tokens": 1,
		"nvext":      map[string]any{"annotations": []string{"query_instance_id"}},
	}
	out, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode router request for %q: %w", request.RequestId, err)
	}
	return out, nil
}

func (s *Scorer) scoreByWorker(pods []types.Pod, workerID string) (map[types.Pod]float64, int) {
	scores := make(map[types.Pod]float64, len(pods))
	matched := 0
	for _, pod := range pods {
		if s.config.WorkerIDLabel != "" && podWorkerID(pod, s.config.WorkerIDLabel) == workerID {
			scores[pod] = 1
			matched++
		} else {
			scores[pod] = 0
		}
	}
	if matched == 0 {
		return equalScores(pods), 0
	}
	return scores, matched
}

func podWorkerID(pod types.Pod, label string) string {
	if pod == nil || pod.GetPod() == nil {
		return ""
	}
	return strings.TrimSpace(pod.GetPod().Labels[label])
}

func equalScores(pods []types.Pod) map[types.Pod]float64 {
	scores := make(map[types.Pod]float64, len(pods))
	for _, pod := range pods {
		scores[pod] = 1
	}
	return scores
}

func deleteHeader(headers map[string]string, name string) {
	for key := range headers {
		if strings.EqualFold(key, name) {
			delete(headers, key)
		}
	}
}
