package booking_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/booking"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

var errTransient = errors.New("transient router failure")

// fastOptions keep backoffs short and the reconciler out of the way: tests
// call Reconcile themselves.
func fastOptions() booking.Options {
	return booking.Options{
		MarkBackoff: time.Millisecond, FreeBackoff: time.Millisecond,
		ReconcileEvery: time.Hour, RetryExhaustedAfter: time.Hour,
	}
}

func newManager(t *testing.T, fake *rt.Fake, opt booking.Options) *booking.Manager {
	t.Helper()
	m := booking.New(fake, opt)
	t.Cleanup(m.Close)
	return m
}

// registered opens a booking whose decode request is registered.
func registered(t *testing.T, m *booking.Manager, id string) *booking.Booking {
	t.Helper()
	b, err := m.Open(id, t)
	require.NoError(t, err)
	finish, err := b.StartRegistration()
	require.NoError(t, err)
	finish(true)
	return b
}

// settle waits until the manager owns no booking.
func settle(t *testing.T, m *booking.Manager) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for m.Outstanding() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("bookings still outstanding: %d", m.Outstanding())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestTransientMarkFailureRetriedAndEndOfStreamFreesOnce(t *testing.T) {
	fake := &rt.Fake{}
	var mu sync.Mutex
	marks := 0
	fake.MarkFunc = func(string) error {
		mu.Lock()
		defer mu.Unlock()
		if marks++; marks == 1 {
			return errTransient
		}
		return nil
	}
	m := newManager(t, fake, fastOptions())
	b := registered(t, m, "b-1")

	b.FirstChunk()
	b.FirstChunk() // later chunks do not mark again
	fake.WaitFor(t, rt.OpMark, 2)
	b.End()
	b.End() // end of stream and a late cancellation: one free
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, m)

	assert.Equal(t, 2, fake.Count(rt.OpMark), "one failure, one retry that succeeds")
	assert.Equal(t, 1, fake.Count(rt.OpFree))
	assert.Zero(t, fake.Count(rt.OpRelease), "a registered request is freed, not released")
}

func TestEmptyTerminalResponseFreesWithoutMarking(t *testing.T) {
	fake := &rt.Fake{}
	m := newManager(t, fake, fastOptions())
	b := registered(t, m, "b-1")
	b.End()
	b.FirstChunk() // nothing after the end marks
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, m)
	assert.Equal(t, []string{rt.OpFree}, fake.Ops("b-1"))
}

func TestMarkRetriesBounded(t *testing.T) {
	fake := &rt.Fake{MarkFunc: func(string) error { return errTransient }}
	opt := fastOptions()
	opt.MarkAttempts = 4
	m := newManager(t, fake, opt)
	b := registered(t, m, "b-1")
	b.FirstChunk()
	fake.WaitFor(t, rt.OpMark, 4)
	// The marker has given up; the end of stream still frees, and the
	// free being recorded after the last mark proves no fifth mark raced it.
	b.End()
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, m)
	assert.Equal(t, 4, fake.Count(rt.OpMark))
	assert.Equal(t, []string{rt.OpMark, rt.OpMark, rt.OpMark, rt.OpMark, rt.OpFree}, fake.Ops("b-1"))
}

func TestEndOfStreamDoesNotWaitForPendingMark(t *testing.T) {
	unblock := make(chan struct{})
	fake := &rt.Fake{MarkFunc: func(string) error { <-unblock; return nil }}
	m := newManager(t, fake, fastOptions())
	b := registered(t, m, "b-1")
	b.FirstChunk()
	fake.WaitFor(t, rt.OpMark, 1) // the mark is now stuck in the router

	b.End() // returns although the mark is still in flight
	fake.WaitFor(t, rt.OpFree, 1)
	assert.Equal(t, []string{rt.OpMark, rt.OpFree}, fake.Ops("b-1"))
	close(unblock)
	settle(t, m)
	assert.Equal(t, 1, fake.Count(rt.OpMark))
}

func TestEndOfStreamAndCancellationFreeOnce(t *testing.T) {
	fake := &rt.Fake{}
	m := newManager(t, fake, fastOptions())
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		ctx, cancel := context.WithCancel(context.Background())
		b := registered(t, m, "b-"+string(rune('A'+i%26))+string(rune('a'+i/26)))
		b.ArmCancellation(ctx)
		wg.Add(2)
		go func() { defer wg.Done(); b.End() }()
		go func() { defer wg.Done(); cancel() }()
	}
	wg.Wait()
	fake.WaitFor(t, rt.OpFree, n)
	settle(t, m)
	assert.Equal(t, n, fake.Count(rt.OpFree))
	seen := map[string]bool{}
	for _, c := range fake.Calls() {
		if c.Op == rt.OpFree {
			assert.False(t, seen[c.ID], "booking %s freed twice", c.ID)
			seen[c.ID] = true
		}
	}
}

func TestCancellationWaitsForRegistration(t *testing.T) {
	fake := &rt.Fake{}
	m := newManager(t, fake, fastOptions())
	b, err := m.Open("b-1", t)
	require.NoError(t, err)
	b.SetPrefillReserved()
	ctx, cancel := context.WithCancel(context.Background())
	b.ArmCancellation(ctx)

	finish, err := b.StartRegistration()
	require.NoError(t, err)
	cancel()
	<-b.Ended()
	assert.Empty(t, fake.Calls(), "no cleanup while add_request is in flight")
	finish(true)
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, m)
	assert.Equal(t, []string{rt.OpFree}, fake.Ops("b-1"), "registered: free_request, which drops the reservation too")

	_, err = b.StartRegistration()
	require.ErrorIs(t, err, booking.ErrEnded, "an ended booking takes no new registration")
}

func TestFailedRegistrationReleasesReservation(t *testing.T) {
	fake := &rt.Fake{}
	m := newManager(t, fake, fastOptions())
	b, err := m.Open("b-1", t)
	require.NoError(t, err)
	b.SetPrefillReserved()
	finish, err := b.StartRegistration()
	require.NoError(t, err)
	finish(false)
	b.End()
	fake.WaitFor(t, rt.OpRelease, 1)
	settle(t, m)
	assert.Equal(t, []string{rt.OpRelease}, fake.Ops("b-1"))
}

func TestCleanupRetries(t *testing.T) {
	failures := 3
	var mu sync.Mutex
	fake := &rt.Fake{FreeFunc: func(string) error {
		mu.Lock()
		defer mu.Unlock()
		if failures > 0 {
			failures--
			return errTransient
		}
		return nil
	}}
	now := time.Unix(1000, 0)
	var clock sync.Mutex
	opt := fastOptions()
	opt.FreeAttempts = 2
	opt.RetryExhaustedAfter = time.Minute
	opt.Now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }
	advance := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }
	m := newManager(t, fake, opt)

	b := registered(t, m, "b-1")
	b.End()
	fake.WaitFor(t, rt.OpFree, 2) // the first run used its two attempts
	waitParked(t, m, 1)

	m.Reconcile() // not due yet: nothing runs
	assert.Equal(t, 2, fake.Count(rt.OpFree))
	assert.Equal(t, 1, m.Parked())

	advance(time.Minute)
	m.Reconcile() // due: third attempt fails, fourth succeeds
	fake.WaitFor(t, rt.OpFree, 4)
	settle(t, m)
	assert.Equal(t, 4, fake.Count(rt.OpFree))
	assert.Zero(t, m.Parked())
}

func TestCleanupGivesUpAfterRetention(t *testing.T) {
	fake := &rt.Fake{FreeFunc: func(string) error { return errTransient }}
	now := time.Unix(1000, 0)
	var clock sync.Mutex
	opt := fastOptions()
	opt.FreeAttempts = 1
	opt.RetryExhaustedAfter = time.Minute
	opt.Retention = 3 * time.Minute
	opt.Now = func() time.Time { clock.Lock(); defer clock.Unlock(); return now }
	advance := func(d time.Duration) { clock.Lock(); now = now.Add(d); clock.Unlock() }
	m := newManager(t, fake, opt)

	registered(t, m, "b-1").End()
	fake.WaitFor(t, rt.OpFree, 1)
	waitParked(t, m, 1)
	advance(time.Minute)
	m.Reconcile()
	fake.WaitFor(t, rt.OpFree, 2)
	waitParked(t, m, 1)

	advance(2 * time.Minute) // three minutes after the end: retention is over
	m.Reconcile()
	assert.Zero(t, m.Parked())
	assert.Zero(t, m.Outstanding(), "ownership ends with the retention")
	assert.Equal(t, 2, fake.Count(rt.OpFree))
}

func TestFullCleanupQueueParksForReconciler(t *testing.T) {
	block := make(chan struct{})
	fake := &rt.Fake{FreeFunc: func(id string) error {
		if id == "blocker" {
			<-block
		}
		return nil
	}}
	opt := fastOptions()
	opt.CleanupWorkers, opt.CleanupQueue = 1, 1
	m := newManager(t, fake, opt)

	registered(t, m, "blocker").End()
	fake.WaitFor(t, rt.OpFree, 1) // the only worker is busy
	registered(t, m, "queued").End()
	registered(t, m, "overflow").End() // the queue is full: parked, not dropped
	assert.Equal(t, 1, m.Parked())
	close(block)
	fake.WaitFor(t, rt.OpFree, 2)
	m.Reconcile()
	fake.WaitFor(t, rt.OpFree, 3)
	settle(t, m)
	assert.Equal(t, []string{rt.OpFree}, fake.Ops("overflow"))
}

func TestLookupChecksOwner(t *testing.T) {
	m := newManager(t, &rt.Fake{}, fastOptions())
	owner, other := new(int), new(int)
	b, err := m.Open("b-1", owner)
	require.NoError(t, err)
	assert.Same(t, b, m.Lookup("b-1", owner))
	assert.Nil(t, m.Lookup("b-1", other), "an id copied into another request finds nothing")
	assert.Nil(t, m.Lookup("", owner))
	_, err = m.Open("b-1", other)
	require.ErrorIs(t, err, booking.ErrInUse)
}

func TestRetentionFor(t *testing.T) {
	assert.Equal(t, booking.DefaultRetention, booking.RetentionFor(time.Minute))
	assert.Equal(t, 22*time.Minute, booking.RetentionFor(20*time.Minute))
}

func waitParked(t *testing.T, m *booking.Manager, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for m.Parked() != n {
		if time.Now().After(deadline) {
			t.Fatalf("parked = %d, want %d", m.Parked(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
