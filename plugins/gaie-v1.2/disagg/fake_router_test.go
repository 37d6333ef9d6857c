package disagg

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

// fakeRouter is a test double of Dynamo v1.0's router pair: it answers
// with scripted decisions, records every call, and like the library
// refuses a request body that is not JSON and any call after Close.
type fakeRouter struct {
	mu         sync.Mutex
	prefill    dynrouter.Decision
	decode     dynrouter.Decision
	prefillErr error
	decodeErr  error
	addErr     error
	closed     bool
	closedCh   chan struct{}
	calls      []string
	lastPods   []byte
	lastBody   []byte
	added      map[string]uint64
}

func newFakeRouter() *fakeRouter {
	return &fakeRouter{
		prefill:  dynrouter.Decision{PrefillWorkerID: 11, TokenIDs: []uint32{1, 2, 3}},
		decode:   dynrouter.Decision{DecodeWorkerID: 22, TokenIDs: []uint32{1, 2, 3}},
		added:    map[string]uint64{},
		closedCh: make(chan struct{}),
	}
}

var errClosed = errors.New("fake router: closed")

func (f *fakeRouter) record(call string) error {
	f.calls = append(f.calls, call)
	if f.closed {
		return errClosed
	}
	return nil
}

func (f *fakeRouter) RoutePrefill(_ context.Context, request, pods []byte) (dynrouter.Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("route_prefill"); err != nil {
		return dynrouter.Decision{}, err
	}
	f.lastBody, f.lastPods = request, pods
	return f.prefill, f.prefillErr
}

func (f *fakeRouter) RouteDecode(_ context.Context, request, pods []byte, disaggregated bool) (dynrouter.Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record(fmt.Sprintf("route_decode disagg=%t", disaggregated)); err != nil {
		return dynrouter.Decision{}, err
	}
	f.lastBody, f.lastPods = request, pods
	return f.decode, f.decodeErr
}

func (f *fakeRouter) AddRequest(id string, tokens []uint32, worker uint64, dpRank uint32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record(fmt.Sprintf("add_request %s worker=%d rank=%d tokens=%d", id, worker, dpRank, len(tokens))); err != nil {
		return err
	}
	if f.addErr != nil {
		return f.addErr
	}
	f.added[id] = worker
	return nil
}

func (f *fakeRouter) MarkPrefillComplete(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.record("mark_prefill_complete " + id)
}

func (f *fakeRouter) FreeRequest(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.added, id)
	return f.record("free_request " + id)
}

func (f *fakeRouter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		close(f.closedCh)
	}
	f.closed = true
	return nil
}

func (f *fakeRouter) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}
