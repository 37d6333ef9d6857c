package pipelinerouter

// These tests link the C API test double: run ffi/build-double.sh first (in
// the GAIE tree, stage the double's archive into the pipeline copy's
// lib/<goarch>/). The double picks worker FNV-1a-64(prompt) mod 4 and gives
// one token per prompt byte (byte value + 1).

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/kvscorer"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

const doubleWorkers = 4

func doubleWorker(prompt string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(prompt))
	return int64(h.Sum64() % doubleWorkers)
}

func doubleTokens(prompt string) []uint32 {
	out := make([]uint32, len(prompt))
	for i := range len(prompt) {
		out[i] = uint32(prompt[i]) + 1
	}
	return out
}

func labelledPods() []types.Pod {
	var out []types.Pod
	for i := range doubleWorkers {
		out = append(out, &types.PodMetrics{
			Pod: &backend.Pod{
				NamespacedName: k8stypes.NamespacedName{Namespace: "default", Name: fmt.Sprintf("worker-%d", i)},
				Labels:         map[string]string{kvscorer.DefaultWorkerIDLabel: fmt.Sprint(i)},
			},
			MetricsState: backendmetrics.NewMetricsState(),
		})
	}
	return out
}

type ctxHandle struct{ ctx context.Context }

func (h ctxHandle) Context() context.Context                          { return h.ctx }
func (h ctxHandle) Plugin(string) plugins.Plugin                      { return nil }
func (h ctxHandle) AddPlugin(string, plugins.Plugin)                  {}
func (h ctxHandle) GetAllPlugins() []plugins.Plugin                   { return nil }
func (h ctxHandle) GetAllPluginsWithNames() map[string]plugins.Plugin { return nil }

func newScorer(t *testing.T, params string) *kvscorer.Scorer {
	t.Helper()
	plugin, err := kvscorer.NewFactory(Open)("dyn-kv", json.RawMessage(params), nil)
	require.NoError(t, err)
	s := plugin.(*kvscorer.Scorer)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestScorerRoutesThroughTheCAPI(t *testing.T) {
	s := newScorer(t, `{"kvBlockSize":64,"namespace":"dynamo","model":"m"}`)
	var _ framework.Scorer = s
	for _, prompt := range []string{"hello", "a longer prompt", "third"} {
		req := &types.LLMRequest{Prompt: prompt, TargetModel: "m"}
		cycle := types.NewCycleState()
		pods := labelledPods()
		scores := s.Score(context.Background(), cycle, req, pods)

		worker := doubleWorker(prompt)
		for i, pod := range pods {
			want := 0.0
			if int64(i) == worker {
				want = 1
			}
			assert.Equal(t, want, scores[pod], "prompt %q pod %d", prompt, i)
		}
		assert.Equal(t, fmt.Sprint(worker), req.Headers[bbrhints.WorkerIDHeader])
		tokens, err := bbrhints.DecodeTokenData(req.Headers[bbrhints.InjectTokenDataHeader])
		require.NoError(t, err)
		assert.Equal(t, doubleTokens(prompt), tokens)
		decision, ok := kvscorer.DecisionFrom(cycle)
		require.True(t, ok)
		assert.Equal(t, worker, decision.WorkerID)
	}
}

func TestCAPIErrorStillSchedules(t *testing.T) {
	s := newScorer(t, `{"kvBlockSize":64,"namespace":"dynamo","model":"m"}`)
	// The double refuses a query for a model the pipeline was not made for.
	req := &types.LLMRequest{Prompt: "hello", TargetModel: "another-model"}
	scores := s.Score(context.Background(), nil, req, labelledPods())
	for _, v := range scores {
		assert.Equal(t, 1.0, v)
	}
	assert.NotContains(t, req.Headers, bbrhints.WorkerIDHeader)
}

func TestOpenErrorNamesTheCall(t *testing.T) {
	_, err := kvscorer.NewFactory(Open)("dyn-kv", json.RawMessage(`{"kvBlockSize":64,"model":"unknown"}`), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dynamo_create_worker_selection_pipeline")
	assert.Contains(t, err.Error(), `model "unknown"`)
}

// Scoring while the EPP shuts down must neither crash nor race: calls in
// flight finish, later ones fall back to equal scores.
func TestShutdownDuringScoring(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	plugin, err := kvscorer.NewFactory(Open)("dyn-kv", json.RawMessage(`{"kvBlockSize":64,"model":"m"}`), ctxHandle{ctx})
	require.NoError(t, err)
	s := plugin.(*kvscorer.Scorer)

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				req := &types.LLMRequest{Prompt: fmt.Sprintf("g%d-%d", g, i), TargetModel: "m"}
				scores := s.Score(context.Background(), nil, req, labelledPods())
				assert.Len(t, scores, doubleWorkers)
				if id, ok := req.Headers[bbrhints.WorkerIDHeader]; ok {
					assert.Equal(t, fmt.Sprint(doubleWorker(req.Prompt)), id)
				}
			}
		}()
	}
	cancel()
	wg.Wait()
	require.NoError(t, s.Close())
	req := &types.LLMRequest{Prompt: "after", TargetModel: "m"}
	s.Score(context.Background(), nil, req, labelledPods())
	assert.NotContains(t, req.Headers, bbrhints.WorkerIDHeader, "a closed router gives no hint")
}
