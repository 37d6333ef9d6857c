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
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

// fakePipeline is a test double of Dynamo v0.9's pipeline: scripted
// selections, every call recorded, the request JSON parsed as the library
// parses it (a chat request), and every call refused after Close.
type fakePipeline struct {
	mu       sync.Mutex
	sel      Selection
	err      error
	addErr   error
	closed   bool
	closedCh chan struct{}
	calls    []string
	lastBody map[string]any
}

func newFake(sel Selection) *fakePipeline {
	return &fakePipeline{sel: sel, closedCh: make(chan struct{})}
}

var errClosed = errors.New("fake pipeline: closed")

func (f *fakePipeline) record(c string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	if f.closed {
		return errClosed
	}
	return nil
}

func (f *fakePipeline) Select(_ context.Context, request []byte) (Selection, error) {
	if err := f.record("select"); err != nil {
		return Selection{}, err
	}
	var body map[string]any
	if err := json.Unmarshal(request, &body); err != nil {
		return Selection{}, err
	}
	f.mu.Lock()
	f.lastBody = body
	f.mu.Unlock()
	return f.sel, f.err
}

func (f *fakePipeline) AddRequest(id string, tokens []uint32, worker uint64, rank uint32) error {
	if err := f.record(fmt.Sprintf("add_request %s worker=%d rank=%d tokens=%d", id, worker, rank, len(tokens))); err != nil {
		return err
	}
	return f.addErr
}

func (f *fakePipeline) MarkPrefillComplete(id string) error {
	return f.record("mark_prefill_complete " + id)
}
func (f *fakePipeline) FreeRequest(id string) error { return f.record("free_request " + id) }
func (f *fakePipeline) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		close(f.closedCh)
	}
	f.closed = true
	return nil
}

func (f *fakePipeline) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func chat(id string, hdr map[string]string, msgs ...schedtypes.Message) *schedtypes.LLMRequest {
	return &schedtypes.LLMRequest{RequestId: id, Headers: hdr,
		Body: &schedtypes.LLMRequestBody{ChatCompletions: &schedtypes.ChatCompletionsRequest{Messages: msgs}}}
}

func user(text string) schedtypes.Message {
	return schedtypes.Message{Role: "user", Content: schedtypes.Content{Raw: text}}
}

func pods(n int) []schedtypes.Pod {
	out := make([]schedtypes.Pod, n)
	for i := range out {
		out[i] = &schedtypes.PodMetrics{Pod: &backend.Pod{PodName: fmt.Sprint("p", i)}}
	}
	return out
}

func TestRequestJSONIsTheQueryDynamoV09Sends(t *testing.T) {
	req := chat("r", nil, schedtypes.Message{Role: "system", Content: schedtypes.Content{Raw: "sys"}}, user("hi"))
	b, err := RequestJSON(req, "Qwen/Qwen3-0.6B")
	require.NoError(t, err)
	assert.JSONEq(t, `{"model":"Qwen/Qwen3-0.6B","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"}],
		"max_tokens":1,"temperature":0,"stream":true,"nvext":{"annotations":["query_instance_id"]}}`, string(b))
	req.TargetModel = "llama"
	b, err = RequestJSON(req, "Qwen/Qwen3-0.6B")
	require.NoError(t, err)
	assert.Contains(t, string(b), `"model":"llama"`)
}

func TestAggregatedLifecycle(t *testing.T) {
	f := newFake(Selection{DecodeWorkerID: 3, PrefillWorkerID: -1, TokenIDs: []uint32{1, 2}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := New(ctx, "kv", f, "m")
	req := chat("r1", map[string]string{PrefillWorkerIDHeader: "9", WorkerIDHeader: "8"}, user("hello"))
	cands := pods(2)
	assert.Equal(t, map[schedtypes.Pod]float64{cands[0]: 1, cands[1]: 1}, s.Score(ctx, nil, req, cands))
	assert.Equal(t, map[string]string{WorkerIDHeader: "3", RoutingModeHeader: ModeAggregated, EnableLocalUpdatesHeader: "false"}, req.Headers)
	assert.Equal(t, "m", f.lastBody["model"])

	s.PreRequest(ctx, req, nil)
	s.ResponseStreaming(ctx, req, nil, nil)
	s.ResponseStreaming(ctx, req, nil, nil)
	s.ResponseComplete(ctx, req, nil, nil)
	assert.Equal(t, []string{"select", "add_request r1 worker=3 rank=0 tokens=2", "mark_prefill_complete r1", "free_request r1"}, f.Calls())
}

func TestDisaggregatedSelectionNamesThePrefillWorker(t *testing.T) {
	f := newFake(Selection{DecodeWorkerID: 3, PrefillWorkerID: 5})
	ctx := context.Background()
	req := chat("r1", nil, user("hello"))
	New(ctx, "kv", f, "m").Score(ctx, nil, req, pods(1))
	assert.Equal(t, "5", req.Headers[PrefillWorkerIDHeader])
	assert.Equal(t, ModeDisaggregated, req.Headers[RoutingModeHeader])

	// The same worker for both is aggregated, as in Dynamo.
	f.sel = Selection{DecodeWorkerID: 3, PrefillWorkerID: 3}
	req = chat("r2", nil, user("hello"))
	New(ctx, "kv", f, "m").Score(ctx, nil, req, pods(1))
	assert.NotContains(t, req.Headers, PrefillWorkerIDHeader)
	assert.Equal(t, ModeAggregated, req.Headers[RoutingModeHeader])
}

func TestFailedSelectionLeavesNoRoutingHeadersAndRegistersNothing(t *testing.T) {
	for name, f := range map[string]*fakePipeline{
		"error":     func() *fakePipeline { f := newFake(Selection{}); f.err = errors.New("no workers"); return f }(),
		"no decode": newFake(Selection{DecodeWorkerID: -1, PrefillWorkerID: -1}),
	} {
		ctx := context.Background()
		s := New(ctx, "kv", f, "m")
		req := chat("r1", map[string]string{WorkerIDHeader: "8", EnableLocalUpdatesHeader: "true", "x-other": "kept"}, user("hello"))
		s.Score(ctx, nil, req, pods(1))
		assert.Equal(t, map[string]string{"x-other": "kept"}, req.Headers, name)
		s.PreRequest(ctx, req, nil)
		s.ResponseStreaming(ctx, req, nil, nil)
		assert.Equal(t, []string{"select"}, f.Calls(), name)
	}
}

func TestARequestWithoutTextIsNotRouted(t *testing.T) {
	f := newFake(Selection{DecodeWorkerID: 1})
	ctx := context.Background()
	req := chat("r1", nil, user("   "))
	New(ctx, "kv", f, "m").Score(ctx, nil, req, pods(1))
	assert.Empty(t, f.Calls())
	assert.NotContains(t, req.Headers, WorkerIDHeader)
}

func TestFailedRegistrationIsNotMarkedButFreed(t *testing.T) {
	f := newFake(Selection{DecodeWorkerID: 2, PrefillWorkerID: -1})
	f.addErr = errors.New("timeout")
	ctx := context.Background()
	s := New(ctx, "kv", f, "m")
	req := chat("r1", nil, user("hello"))
	s.Score(ctx, nil, req, pods(1))
	s.PreRequest(ctx, req, nil)
	s.ResponseStreaming(ctx, req, nil, nil)
	s.ResponseComplete(ctx, req, nil, nil)
	assert.Equal(t, []string{"select", "add_request r1 worker=2 rank=0 tokens=0", "free_request r1"}, f.Calls())
}

func TestFactorySharesOnePipelineOpenedFromTheEnvironment(t *testing.T) {
	var opened []Config
	f := newFake(Selection{DecodeWorkerID: 1})
	s := &shared{
		open:   func(c Config) (Router, error) { opened = append(opened, c); return f, nil },
		getenv: env(map[string]string{EnvKVBlockSize: "32", EnvModel: "llama"}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := handle{ctx: ctx}
	p, err := s.factory("a", json.RawMessage(`{"unknown":1}`), h)
	require.NoError(t, err)
	assert.Equal(t, plugins.TypedName{Type: Type, Name: "a"}, p.TypedName())
	_, err = s.factory("b", nil, h)
	require.NoError(t, err)
	require.Len(t, opened, 1)
	assert.Equal(t, "llama", opened[0].Model)
	assert.Equal(t, uint32(32), opened[0].KVBlockSize)
	_, err = s.factory("c", json.RawMessage(`[1]`), h)
	assert.Error(t, err)

	cancel()
	<-f.closedCh
}

func TestFactoryFailsWithoutTheKVBlockSize(t *testing.T) {
	s := &shared{
		open:   func(Config) (Router, error) { t.Fatal("opened without a block size"); return nil, nil },
		getenv: env(nil),
	}
	_, err := s.factory("a", nil, nil)
	assert.ErrorContains(t, err, EnvKVBlockSize)
}
