package pipeline_test

// These tests run against the C API test double (testdata/capi-double);
// build it first with ffi/build-double.sh.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/ffi/internal/capidouble"
	"github.com/epp-build/epp-build/ffi/pipeline"
)

func testConfig() pipeline.Config {
	return pipeline.Config{
		Namespace: "dynamo", Component: "backend", Model: "qwen",
		KVBlockSize: 16, UseKVRouting: true, BusyThreshold: 0.9,
		OverlapScoreWeight: 1, RouterTemperature: 0,
	}
}

func openRouter(t *testing.T, cfg pipeline.Config) *pipeline.Router {
	t.Helper()
	r, err := pipeline.Open(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close()) })
	return r
}

func chatRequest(prompt string) []byte {
	body, err := json.Marshal(map[string]any{
		"model":    "qwen",
		"messages": []map[string]string{{"role": "user", "content": prompt}},
		"stream":   true,
	})
	if err != nil {
		panic(err)
	}
	return body
}

// expectedWorker mirrors the double's rule with Go's own FNV-1a so the test
// does not trust the library to grade itself.
func expectedWorker(prompt string, workers uint64) int64 {
	h := fnv.New64a()
	h.Write([]byte(prompt))
	return int64(h.Sum64() % workers)
}

func TestSelectRoutesTokenizesAndAnnotates(t *testing.T) {
	r := openRouter(t, testConfig())
	prompt := "Explain KV cache routing"

	sel, err := r.Select(context.Background(), chatRequest(prompt))
	require.NoError(t, err)

	assert.Equal(t, expectedWorker(prompt, 4), sel.WorkerID)
	require.Len(t, sel.TokenIDs, len(prompt))
	for i := range len(prompt) {
		assert.Equal(t, uint32(prompt[i])+1, sel.TokenIDs[i], "token %d", i)
	}

	var annotated struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
		NVExt  struct {
			BackendInstanceID int64    `json:"backend_instance_id"`
			TokenData         []uint32 `json:"token_data"`
		} `json:"nvext"`
	}
	require.NoError(t, json.Unmarshal(sel.AnnotatedRequest, &annotated), "%s", sel.AnnotatedRequest)
	assert.Equal(t, "qwen", annotated.Model)
	assert.True(t, annotated.Stream)
	assert.Equal(t, sel.WorkerID, annotated.NVExt.BackendInstanceID)
	assert.Equal(t, sel.TokenIDs, annotated.NVExt.TokenData)
}

func TestSelectHonoursWorkerCount(t *testing.T) {
	t.Setenv("DYNAMO_DOUBLE_WORKERS", "1000")
	r := openRouter(t, testConfig())
	for _, prompt := range []string{"a", "bb", "hello world"} {
		sel, err := r.Select(context.Background(), chatRequest(prompt))
		require.NoError(t, err)
		assert.Equal(t, expectedWorker(prompt, 1000), sel.WorkerID, prompt)
	}
}

// The binding passes three arguments to dynamo_llm_init, as Rust declares
// since v0.7.0: the block size arrives where Rust reads it.
func TestInitReceivesKVBlockSize(t *testing.T) {
	openRouter(t, testConfig())
	assert.Equal(t, testConfig().KVBlockSize, capidouble.InitKVBlockSize())
}

func TestSelectFreesEveryResultExactlyOnce(t *testing.T) {
	r := openRouter(t, testConfig())
	outstanding, violations := capidouble.OutstandingResults(), capidouble.Violations()

	for i := range 50 {
		_, err := r.Select(context.Background(), chatRequest(fmt.Sprintf("prompt %d", i)))
		require.NoError(t, err)
	}
	// A failed query hands out nothing, so nothing may be freed either.
	_, err := r.Select(context.Background(), []byte(`{"not":"a request"}`))
	require.Error(t, err)

	assert.Equal(t, outstanding, capidouble.OutstandingResults(), "results left unfreed")
	assert.Equal(t, violations, capidouble.Violations(), "double free or foreign free")
}

func TestErrorCodeBecomesCallError(t *testing.T) {
	r := openRouter(t, testConfig())

	_, err := r.Select(context.Background(), []byte(`{"model":"qwen"}`))
	var callErr *pipeline.CallError
	require.ErrorAs(t, err, &callErr)
	assert.Equal(t, "dynamo_query_worker_selection_and_annotate", callErr.Call)
	assert.Equal(t, 5, callErr.Code)
	assert.Equal(t, "dynamo_query_worker_selection_and_annotate: code 5 (bad request JSON)", err.Error())
}

func TestOpenUnknownModelFailsAndReleasesRuntime(t *testing.T) {
	cfg := testConfig()
	cfg.Model = "unknown"
	r, err := pipeline.Open(cfg)
	require.Nil(t, r)
	var callErr *pipeline.CallError
	require.ErrorAs(t, err, &callErr)
	assert.Equal(t, "dynamo_create_worker_selection_pipeline", callErr.Call)
	assert.Equal(t, 4, callErr.Code)
	assert.Contains(t, err.Error(), `model "unknown"`)
	// The runtime stays: it can only be initialised once per process.
	openRouter(t, testConfig())
}

func TestOpenValidatesConfig(t *testing.T) {
	cfg := testConfig()
	cfg.KVBlockSize = 0
	_, err := pipeline.Open(cfg)
	require.ErrorContains(t, err, "KV block size")

	cfg = testConfig()
	cfg.Namespace = ""
	_, err = pipeline.Open(cfg)
	require.ErrorContains(t, err, "namespace and model are required")
}

func TestRoutersShareOneRuntime(t *testing.T) {
	a := openRouter(t, testConfig())
	b, err := pipeline.Open(testConfig())
	require.NoError(t, err)
	require.NoError(t, b.Close())

	// Closing b must not shut down the runtime a still uses.
	assert.Equal(t, uint32(16), capidouble.InitKVBlockSize())
	_, err = a.Select(context.Background(), chatRequest("still here"))
	require.NoError(t, err)

	// Another namespace gets its own pipeline on the same runtime: init
	// runs once per process, with the first Router's arguments.
	other := testConfig()
	other.Namespace = "elsewhere"
	other.KVBlockSize = 32
	openRouter(t, other)
	assert.Equal(t, uint32(16), capidouble.InitKVBlockSize())
}

func TestCloseIsIdempotentAndLaterCallsFail(t *testing.T) {
	live := capidouble.LivePipelines()
	r, err := pipeline.Open(testConfig())
	require.NoError(t, err)
	assert.Equal(t, live+1, capidouble.LivePipelines())

	require.NoError(t, r.Close())
	require.NoError(t, r.Close())
	assert.Equal(t, live, capidouble.LivePipelines())

	_, err = r.Select(context.Background(), chatRequest("late"))
	require.ErrorIs(t, err, pipeline.ErrClosed)
}

func TestSelectChecksContextFirst(t *testing.T) {
	r := openRouter(t, testConfig())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := r.Select(ctx, chatRequest("x"))
	require.ErrorIs(t, err, context.Canceled)
}

// Many goroutines select while another closes. Without one lock held
// across the whole C call, two queries would overlap on the pipeline
// (Dynamo forbids it) and Close could destroy the pipeline under a running
// query; the double counts both (and any use of the destroyed handle) as
// violations. Run under -race.
func TestCloseNeverRacesCallsInFlight(t *testing.T) {
	t.Setenv("DYNAMO_DOUBLE_QUERY_DELAY_US", "200") // widen the window
	violations, outstanding := capidouble.Violations(), capidouble.OutstandingResults()
	r, err := pipeline.Open(testConfig())
	require.NoError(t, err)

	const workers = 16
	var (
		wg        sync.WaitGroup
		successes atomic.Int64
		enough    = make(chan struct{})
		once      sync.Once
		errs      = make(chan error, workers)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				_, err := r.Select(context.Background(), chatRequest(fmt.Sprintf("w%d-%d", w, i)))
				if err != nil {
					errs <- err
					return
				}
				if successes.Add(1) >= 4*workers {
					once.Do(func() { close(enough) })
				}
			}
		}()
	}
	<-enough // Close while every goroutine is still calling in.
	require.NoError(t, r.Close())
	wg.Wait()
	close(errs)

	for err := range errs {
		assert.True(t, errors.Is(err, pipeline.ErrClosed), "unexpected error: %v", err)
	}
	assert.Equal(t, violations, capidouble.Violations(), "a call used a destroyed pipeline or close hit a call in flight")
	assert.Equal(t, outstanding, capidouble.OutstandingResults())
}
