package kvscorer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework/plugins/picker"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework/plugins/profile"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

const testWorkers = 4

func testConfig() Config {
	cfg, _ := LoadConfig(json.RawMessage(`{"kvBlockSize":64,"model":"fallback-model"}`), envOf(nil))
	return cfg
}

// pods returns one pod per worker id (100..103), labelled when labelled is
// true, plus an unlabelled one.
func pods(labelled bool) []types.Pod {
	var out []types.Pod
	for i := range testWorkers + 1 {
		labels := map[string]string{}
		if labelled && i < testWorkers {
			labels[DefaultWorkerIDLabel] = fmt.Sprint(100 + i)
		}
		out = append(out, &types.PodMetrics{
			Pod: &backend.Pod{
				NamespacedName: k8stypes.NamespacedName{Namespace: "default", Name: fmt.Sprintf("pod-%d", i)},
				Address:        fmt.Sprintf("10.0.0.%d", i+1),
				Labels:         labels,
			},
			MetricsState: backendmetrics.NewMetricsState(),
		})
	}
	return out
}

// newScheduler builds GAIE's own scheduler around the scorer: one profile,
// the scorer at weight 1, the max-score picker.
func newScheduler(s *Scorer) *scheduling.Scheduler {
	prof := framework.NewSchedulerProfile().
		WithScorers(framework.NewWeightedScorer(s, 1)).
		WithPicker(picker.NewMaxScorePicker(1))
	return scheduling.NewSchedulerWithConfig(scheduling.NewSchedulerConfig(
		profile.NewSingleProfileHandler(), map[string]*framework.SchedulerProfile{"default": prof}))
}

func targetName(t *testing.T, result *types.SchedulingResult) string {
	t.Helper()
	require.NotNil(t, result)
	run := result.ProfileResults[result.PrimaryProfileName]
	require.NotNil(t, run)
	require.Len(t, run.TargetPods, 1)
	return run.TargetPods[0].GetPod().NamespacedName.Name
}

func TestScheduleSendsRequestToTheChosenWorkersPod(t *testing.T) {
	router := &fakeRouter{workers: testWorkers}
	sched := newScheduler(New("kv", testConfig(), router))
	for _, prompt := range []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"} {
		req := &types.LLMRequest{RequestId: prompt, TargetModel: "m", Prompt: prompt,
			Headers: map[string]string{"X-Worker-Instance-Id": "999", bbrhints.InjectTokenDataHeader: "forged"}}
		result, err := sched.Schedule(context.Background(), req, pods(true))
		require.NoError(t, err)

		worker := expectedWorker(prompt, testWorkers)
		assert.Equal(t, fmt.Sprintf("pod-%d", worker-100), targetName(t, result), "prompt %q", prompt)
		assert.Equal(t, map[string]string{
			bbrhints.WorkerIDHeader:        fmt.Sprint(worker),
			bbrhints.InjectTokenDataHeader: bbrhints.EncodeTokenData(expectedTokens(prompt)),
		}, req.Headers, "client-sent hints are replaced by the router's answer")
	}
	_, _, last := router.snapshot()
	assert.JSONEq(t, `{"model":"m","messages":[{"role":"user","content":"foxtrot"}],"stream":true,"max_tokens":1,
		"nvext":{"annotations":["query_instance_id"]}}`, string(last))
}

func TestScoreValuesAndCycleState(t *testing.T) {
	router := &fakeRouter{workers: testWorkers}
	s := New("kv", testConfig(), router)
	candidates := pods(true)
	cycle := types.NewCycleState()
	req := &types.LLMRequest{Prompt: "alpha"}
	scores := s.Score(context.Background(), cycle, req, candidates)

	worker := expectedWorker("alpha", testWorkers)
	for i, pod := range candidates {
		want := 0.0
		if int64(i) == worker-100 {
			want = 1
		}
		assert.Equal(t, want, scores[pod], "pod-%d", i)
	}
	decision, ok := DecisionFrom(cycle)
	require.True(t, ok)
	assert.Equal(t, &Decision{WorkerID: worker, TokenIDs: expectedTokens("alpha")}, decision)
	clone := decision.Clone().(*Decision)
	clone.TokenIDs[0] = 0
	assert.NotEqual(t, clone.TokenIDs, decision.TokenIDs, "a cloned decision does not share tokens")

	_, _, last := router.snapshot()
	assert.Contains(t, string(last), `"model":"fallback-model"`, "without a target model the configured model is routed")
}

func TestScoreWithoutMatchingPodsIsEqual(t *testing.T) {
	s := New("kv", testConfig(), &fakeRouter{workers: testWorkers})
	candidates := pods(false)
	req := &types.LLMRequest{Prompt: "alpha"}
	scores := s.Score(context.Background(), types.NewCycleState(), req, candidates)
	require.Len(t, scores, len(candidates))
	for _, pod := range candidates {
		assert.Equal(t, 1.0, scores[pod])
	}
	assert.Equal(t, fmt.Sprint(expectedWorker("alpha", testWorkers)), req.Headers[bbrhints.WorkerIDHeader],
		"the decision still travels in the headers for the frontend")

	noLabel := testConfig()
	noLabel.WorkerIDLabel = ""
	scores = New("kv", noLabel, &fakeRouter{workers: testWorkers}).Score(context.Background(), nil, &types.LLMRequest{Prompt: "a"}, pods(true))
	for _, v := range scores {
		assert.Equal(t, 1.0, v, "an empty label disables pod matching")
	}
}

func TestRouterFailureStillSchedules(t *testing.T) {
	for name, router := range map[string]Router{
		"error":              &fakeRouter{workers: testWorkers, err: errors.New("dynamo_query_worker_selection_and_annotate: code 1")},
		"closed":             &fakeRouter{workers: testWorkers, closed: 1},
		"negative worker id": negativeRouter{&fakeRouter{workers: testWorkers}},
	} {
		t.Run(name, func(t *testing.T) {
			s := New("kv", testConfig(), router)
			req := &types.LLMRequest{Prompt: "alpha", Headers: map[string]string{bbrhints.WorkerIDHeader: "7"}}
			cycle := types.NewCycleState()
			candidates := pods(true)
			scores := s.Score(context.Background(), cycle, req, candidates)
			for _, pod := range candidates {
				assert.Equal(t, 1.0, scores[pod])
			}
			assert.Empty(t, req.Headers, "no hint after a failure, and the client's is gone")
			_, ok := DecisionFrom(cycle)
			assert.False(t, ok)

			result, err := newScheduler(s).Schedule(context.Background(), &types.LLMRequest{Prompt: "x"}, candidates)
			require.NoError(t, err)
			assert.NotEmpty(t, targetName(t, result))
		})
	}
}

// negativeRouter returns a worker id no Dynamo worker can have.
type negativeRouter struct{ *fakeRouter }

func (n negativeRouter) Select(ctx context.Context, b []byte) (Selection, error) {
	s, err := n.fakeRouter.Select(ctx, b)
	s.WorkerID = -5
	return s, err
}

func TestScoreNilRequest(t *testing.T) {
	router := &fakeRouter{workers: testWorkers}
	s := New("kv", testConfig(), router)
	var scores map[types.Pod]float64
	require.NotPanics(t, func() { scores = s.Score(context.Background(), nil, nil, pods(true)) })
	assert.Len(t, scores, testWorkers+1)
	calls, _, _ := router.snapshot()
	assert.Zero(t, calls)
}

// One scorer serves many requests at once; each request's headers must carry
// its own decision. Each goroutine gets its own scheduler around the SAME
// scorer: GAIE v0.5.1's max-score picker shuffles with a shared math/rand
// source, which is itself a data race under -race (upstream, not ours).
func TestConcurrentSchedulingKeepsDecisionsApart(t *testing.T) {
	shared := New("kv", testConfig(), &fakeRouter{workers: testWorkers})
	const n = 64
	var wg sync.WaitGroup
	reqs := make([]*types.LLMRequest, n)
	results := make([]*types.SchedulingResult, n)
	errs := make([]error, n)
	for i := range n {
		reqs[i] = &types.LLMRequest{RequestId: fmt.Sprint(i), Prompt: fmt.Sprintf("prompt number %d", i), Headers: map[string]string{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = newScheduler(shared).Schedule(context.Background(), reqs[i], pods(false))
		}()
	}
	wg.Wait()
	for i, req := range reqs {
		require.NoError(t, errs[i])
		assert.Equal(t, fmt.Sprint(expectedWorker(req.Prompt, testWorkers)), req.Headers[bbrhints.WorkerIDHeader])
		assert.Equal(t, bbrhints.EncodeTokenData(expectedTokens(req.Prompt)), req.Headers[bbrhints.InjectTokenDataHeader])
	}
}

func TestCloseIsOnce(t *testing.T) {
	router := &fakeRouter{workers: testWorkers}
	s := New("kv", testConfig(), router)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, closed, _ := router.snapshot()
	assert.Equal(t, 1, closed)
}
