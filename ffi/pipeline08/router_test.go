package pipeline08_test

// These tests run against the C API test double built with Dynamo v0.8.0's
// signatures (feature pipeline08); build it first with ffi/build-double.sh.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/ffi/internal/capidouble08"
	"github.com/epp-build/epp-build/ffi/pipeline08"
)

func openRouter(t *testing.T, enforceDisagg bool) *pipeline08.Router {
	t.Helper()
	r, err := pipeline08.Open(pipeline08.Config{
		Namespace: "dynamo", Component: "backend", Model: "qwen", KVBlockSize: 16,
		UseKVRouting: true, BusyThreshold: -1, OverlapScoreWeight: -1, RouterTemperature: -1,
		EnforceDisagg: enforceDisagg,
	})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close()) })
	return r
}

func chat(prompt string) []byte {
	body, _ := json.Marshal(map[string]any{"model": "qwen", "messages": []map[string]string{{"role": "user", "content": prompt}}})
	return body
}

func expectedWorker(prompt string) int64 {
	h := fnv.New64a()
	h.Write([]byte(prompt))
	return int64(h.Sum64() % 4)
}

// The binding passes v0.8.0's arities: enforce_disagg reaches create and
// the prefill worker comes back from query (-1 when not disaggregated).
func TestSelectReturnsDecodeAndPrefillWorkers(t *testing.T) {
	outstanding := capidouble08.OutstandingResults()
	for _, disagg := range []bool{false, true} {
		r := openRouter(t, disagg)
		prompt := fmt.Sprintf("route me %v", disagg)
		sel, err := r.Select(context.Background(), chat(prompt))
		require.NoError(t, err)
		assert.Equal(t, expectedWorker(prompt), sel.DecodeWorkerID)
		assert.Len(t, sel.TokenIDs, len(prompt))
		if disagg {
			assert.Equal(t, (sel.DecodeWorkerID+1)%4, sel.PrefillWorkerID)
		} else {
			assert.Equal(t, int64(pipeline08.NoPrefillWorker), sel.PrefillWorkerID)
		}
	}
	assert.Equal(t, outstanding, capidouble08.OutstandingResults(), "every result freed")
}

func TestBookkeepingRegistersAndFrees(t *testing.T) {
	r := openRouter(t, false)
	before := capidouble08.RegisteredRequests()
	require.NoError(t, r.AddRequest("req-1", []uint32{1, 2, 3}, 2, 0))
	require.NoError(t, r.AddRequest("req-2", nil, 1, 0))
	assert.Equal(t, before+2, capidouble08.RegisteredRequests())
	require.NoError(t, r.MarkPrefillComplete("req-1"))
	require.NoError(t, r.FreeRequest("req-1"))
	require.NoError(t, r.FreeRequest("req-2"))
	require.NoError(t, r.FreeRequest("never-added"), "the library frees an unknown id without error")
	assert.Equal(t, before, capidouble08.RegisteredRequests())
	assert.Error(t, r.AddRequest("", nil, 1, 0), "an empty id is refused before C")
}

// Dynamo's library does not allow bookkeeping calls concurrently on one
// pipeline; the double reports any overlap as a violation.
func TestConcurrentBookkeepingIsSerialised(t *testing.T) {
	t.Setenv("DYNAMO_DOUBLE_QUERY_DELAY_US", "200")
	r := openRouter(t, false)
	violations := capidouble08.Violations()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("c-%d", i)
			assert.NoError(t, r.AddRequest(id, []uint32{uint32(i)}, 1, 0))
			assert.NoError(t, r.FreeRequest(id))
		}()
	}
	wg.Wait()
	assert.Equal(t, violations, capidouble08.Violations())
}

// Dynamo v0.8's library allows one call at a time on a pipeline (query,
// add_request, mark_prefill_complete, free_request; destroy after all of
// them). The double answers an overlapping call with ERR_BUSY and counts a
// violation, so every call here must succeed and none may be counted.
func TestCallsOnOnePipelineNeverOverlap(t *testing.T) {
	t.Setenv("DYNAMO_DOUBLE_QUERY_DELAY_US", "300")
	r := openRouter(t, true)
	violations := capidouble08.Violations()
	outstanding := capidouble08.OutstandingResults()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("q-%d", i)
			sel, err := r.Select(context.Background(), chat(id))
			if !assert.NoError(t, err, "query %d", i) {
				return
			}
			assert.NoError(t, r.AddRequest(id, sel.TokenIDs, uint64(sel.DecodeWorkerID), 0))
			assert.NoError(t, r.MarkPrefillComplete(id))
			assert.NoError(t, r.FreeRequest(id))
		}()
	}
	wg.Wait()
	assert.Equal(t, violations, capidouble08.Violations(), "overlapping C calls on one pipeline")
	assert.Equal(t, outstanding, capidouble08.OutstandingResults(), "every result freed")
}

// Close while calls are running and arriving: destroy runs after the call in
// flight, calls that come later fail with ErrClosed, nothing overlaps and
// nothing deadlocks.
func TestCloseDuringCalls(t *testing.T) {
	t.Setenv("DYNAMO_DOUBLE_QUERY_DELAY_US", "300")
	r := openRouter(t, false)
	violations := capidouble08.Violations()
	live := capidouble08.LivePipelines()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for j := 0; ; j++ {
				id := fmt.Sprintf("c-%d-%d", i, j)
				_, err := r.Select(context.Background(), chat(id))
				if errors.Is(err, pipeline08.ErrClosed) {
					return
				}
				assert.NoError(t, err)
				if err := r.FreeRequest(id); errors.Is(err, pipeline08.ErrClosed) {
					return
				} else {
					assert.NoError(t, err)
				}
			}
		}()
	}
	close(start)
	time.Sleep(5 * time.Millisecond)
	require.NoError(t, r.Close())
	wg.Wait()
	assert.Equal(t, violations, capidouble08.Violations(), "a call overlapped destroy or another call")
	assert.Equal(t, live-1, capidouble08.LivePipelines(), "destroyed once")
}

// A query waiting for the pipeline gives up when its context ends.
func TestSelectWaitHonoursContext(t *testing.T) {
	t.Setenv("DYNAMO_DOUBLE_QUERY_DELAY_US", "200000")
	r := openRouter(t, false)
	done := make(chan error, 1)
	go func() {
		_, err := r.Select(context.Background(), chat("slow"))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // the slow query holds the pipeline
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := r.Select(ctx, chat("waits"))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NoError(t, <-done)
}

func TestCallsAfterCloseFail(t *testing.T) {
	r := openRouter(t, false)
	require.NoError(t, r.Close())
	_, err := r.Select(context.Background(), chat("x"))
	assert.ErrorIs(t, err, pipeline08.ErrClosed)
	assert.ErrorIs(t, r.FreeRequest("x"), pipeline08.ErrClosed)
}
