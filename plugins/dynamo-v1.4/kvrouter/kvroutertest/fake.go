// Package kvroutertest provides a scriptable in-memory kvrouter.Router for
// tests: it records every call in order and lets a test replace any call's
// behaviour, block it, or wait until it happened.
package kvroutertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// Call names as recorded.
const (
	OpRoutePrefill = "route_prefill"
	OpRouteDecode  = "route_decode"
	OpAdd          = "add_request"
	OpMark         = "mark_prefill_complete"
	OpFree         = "free_request"
	OpBegin        = "begin_prefill_reservation"
	OpReserve      = "reserve_prefill"
	OpCancel       = "cancel_prefill_reservation"
	OpRelease      = "release_prefill_reservation"
	OpClose        = "close"
)

// Call is one recorded call.
type Call struct {
	Op string
	ID string
	// Disaggregated is RouteDecode's flag; Request is the body routed and
	// Pods the candidates' JSON ("" for none).
	Disaggregated bool
	Request       string
	Pods          string
}

// DefaultDecision is what routing returns unless a test overrides it.
var DefaultDecision = kvrouter.Decision{
	Disaggregated: true, PrefillWorkerID: 3, DecodeWorkerID: 7,
	PrefillDPRank: kvrouter.UnsetDPRank, DecodeDPRank: 1,
	TokenIDs: []uint32{11, 12, 13}, CacheNamespace: "tenant-a",
}

// Fake is a kvrouter.Router. Set the *Func fields before use to script a
// call; nil means "succeed with DefaultDecision".
type Fake struct {
	RouteDecodeFunc func(ctx context.Context, request, pods []byte, disaggregated bool) (kvrouter.Decision, error)
	AddFunc         func(id string) error
	MarkFunc        func(id string) error
	FreeFunc        func(id string) error
	BeginFunc       func(id string) error
	ReserveFunc     func(ctx context.Context, id string, request, pods []byte) (kvrouter.Decision, error)
	CancelFunc      func(id string) error
	ReleaseFunc     func(id string) error
	// NoBegin makes the fake a library without the begin call (the
	// two-call reservation form): HasPrefillReservationBegin is false.
	NoBegin bool

	mu      sync.Mutex
	calls   []Call
	changed chan struct{}
}

var (
	_ kvrouter.Router           = (*Fake)(nil)
	_ kvrouter.ReservationBegin = (*Fake)(nil)
)

// HasPrefillReservationBegin is !NoBegin.
func (f *Fake) HasPrefillReservationBegin() bool { return !f.NoBegin }

func (f *Fake) record(c Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	if f.changed != nil {
		close(f.changed)
		f.changed = nil
	}
}

// Calls returns a copy of the calls so far, in order.
func (f *Fake) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Count is the number of calls of op so far.
func (f *Fake) Count(op string) int {
	n := 0
	for _, c := range f.Calls() {
		if c.Op == op {
			n++
		}
	}
	return n
}

// Ops lists the operations made on id, in order.
func (f *Fake) Ops(id string) []string {
	var ops []string
	for _, c := range f.Calls() {
		if c.ID == id {
			ops = append(ops, c.Op)
		}
	}
	return ops
}

// WaitFor blocks until op was called at least n times. The deadline only
// stops a broken test from hanging; nothing is asserted about time.
func (f *Fake) WaitFor(t testing.TB, op string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		f.mu.Lock()
		count := 0
		for _, c := range f.calls {
			if c.Op == op {
				count++
			}
		}
		if count >= n {
			f.mu.Unlock()
			return
		}
		if f.changed == nil {
			f.changed = make(chan struct{})
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("gave up waiting for %d %s call(s); calls so far: %+v", n, op, f.Calls())
		}
	}
}

func (f *Fake) RoutePrefill(ctx context.Context, request, pods []byte) (kvrouter.Decision, error) {
	f.record(Call{Op: OpRoutePrefill, Request: string(request), Pods: string(pods)})
	return DefaultDecision, ctx.Err()
}

func (f *Fake) RouteDecode(ctx context.Context, request, pods []byte, disaggregated bool) (kvrouter.Decision, error) {
	f.record(Call{Op: OpRouteDecode, Disaggregated: disaggregated, Request: string(request), Pods: string(pods)})
	if f.RouteDecodeFunc != nil {
		return f.RouteDecodeFunc(ctx, request, pods, disaggregated)
	}
	return DefaultDecision, nil
}

func (f *Fake) AddRequest(id string, _ []uint32, _ uint64, _ uint32, _ string) error {
	f.record(Call{Op: OpAdd, ID: id})
	return call(f.AddFunc, id)
}

func (f *Fake) MarkPrefillComplete(id string) error {
	f.record(Call{Op: OpMark, ID: id})
	return call(f.MarkFunc, id)
}

func (f *Fake) FreeRequest(id string) error {
	f.record(Call{Op: OpFree, ID: id})
	return call(f.FreeFunc, id)
}

func (f *Fake) BeginPrefillReservation(id string) error {
	f.record(Call{Op: OpBegin, ID: id})
	return call(f.BeginFunc, id)
}

func (f *Fake) ReservePrefill(ctx context.Context, id string, request, pods []byte) (kvrouter.Decision, error) {
	f.record(Call{Op: OpReserve, ID: id, Request: string(request), Pods: string(pods)})
	if f.ReserveFunc != nil {
		return f.ReserveFunc(ctx, id, request, pods)
	}
	return DefaultDecision, nil
}

func (f *Fake) CancelPrefillReservation(id string) error {
	f.record(Call{Op: OpCancel, ID: id})
	return call(f.CancelFunc, id)
}

func (f *Fake) ReleasePrefillReservation(id string) error {
	f.record(Call{Op: OpRelease, ID: id})
	return call(f.ReleaseFunc, id)
}

func (f *Fake) Close() error {
	f.record(Call{Op: OpClose})
	return nil
}

func call(fn func(string) error, id string) error {
	if fn == nil {
		return nil
	}
	return fn(id)
}
