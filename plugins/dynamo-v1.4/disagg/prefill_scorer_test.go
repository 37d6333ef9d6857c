package disagg_test

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestExternalIDsNotTrusted(t *testing.T) {
	fake := &rt.Fake{}
	r := newRuntime(t, fake)
	prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{})
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})
	req := newRequest(map[string]string{
		disagg.BookingIDHeader:       "client-booking",
		disagg.PrefillWorkerIDHeader: "999",
		disagg.WorkerIDHeader:        "999",
		disagg.RoutingModeHeader:     disagg.ModeDisaggregated,
	})
	cs := disaggCycle()
	eps := endpoints()
	prefill.Score(background, cs, req, eps)
	decode.Score(background, cs, req, eps)

	id := req.Headers[disagg.BookingIDHeader]
	assert.Regexp(t, uuidV4, id, "the booking id is minted by the EPP")
	assert.NotEqual(t, "client-booking", id)
	assert.NotEqual(t, req.RequestId, id)
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpAdd}, fake.Ops(id))
	assert.Empty(t, fake.Ops("client-booking"))
	assert.Empty(t, fake.Ops(req.RequestId))
	assert.Equal(t, "3", req.Headers[disagg.PrefillWorkerIDHeader])
	assert.Equal(t, "7", req.Headers[disagg.WorkerIDHeader])
	assert.Equal(t, disagg.ModeDisaggregated, req.Headers[disagg.RoutingModeHeader])

	// Another request carrying this booking id in its headers cannot end it.
	forged := newRequest(map[string]string{disagg.BookingIDHeader: id})
	decode.ResponseBody(background, forged, chunk(true), nil)
	b := r.Bookings.Lookup(id, req)
	require.NotNil(t, b)
	select {
	case <-b.Ended():
		t.Fatal("a forged booking header ended another request's booking")
	default:
	}
	decode.ResponseBody(background, req, chunk(true), nil)
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, r)
	assert.Equal(t, 1, fake.Count(rt.OpFree))

	// Two requests never share a booking id.
	other := newRequest(map[string]string{disagg.BookingIDHeader: id})
	prefill.Score(background, disaggCycle(), other, eps)
	assert.NotEqual(t, id, other.Headers[disagg.BookingIDHeader])
}

// blockingReserve returns a Reserve hook that waits until the booking is
// cancelled, then returns the given late outcome.
func blockingReserve(fake *rt.Fake, late kvrouter.Decision, lateErr error) func(context.Context, string, []byte, []byte) (kvrouter.Decision, error) {
	cancelled := make(chan struct{})
	var once sync.Once
	fake.CancelFunc = func(string) error { once.Do(func() { close(cancelled) }); return nil }
	return func(context.Context, string, []byte, []byte) (kvrouter.Decision, error) {
		<-cancelled
		return late, lateErr
	}
}

func TestCancelPendingReservationCancelsThenReleasesNeverFrees(t *testing.T) {
	for _, tc := range []struct {
		name    string
		late    kvrouter.Decision
		lateErr error
	}{
		{"late failure", kvrouter.Decision{}, errors.New("code 6 (timed out)")},
		{"late success", rt.DefaultDecision, nil}, // Rust may hold an active reservation
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &rt.Fake{}
			fake.ReserveFunc = blockingReserve(fake, tc.late, tc.lateErr)
			r := newRuntime(t, fake)
			prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{})
			ctx, cancel := context.WithCancel(background)
			req, cs := newRequest(nil), disaggCycle()

			done := make(chan map[string]float64)
			go func() {
				scores := prefill.Score(ctx, cs, req, endpoints())
				out := map[string]float64{}
				for ep, s := range scores {
					out[ep.GetMetadata().PodName] = s
				}
				done <- out
			}()
			fake.WaitFor(t, rt.OpReserve, 1)
			cancel() // the client went away while the reservation was pending
			scores := <-done
			fake.WaitFor(t, rt.OpRelease, 1)

			id := req.Headers[disagg.BookingIDHeader]
			assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpCancel, rt.OpRelease}, fake.Ops(id))
			assert.Zero(t, fake.Count(rt.OpFree), "never a combined free for a reservation")
			assert.Equal(t, map[string]float64{"pod-a": 0, "pod-b": 0}, scores)
			assert.False(t, prefillEnabled(cs), "falls back to aggregated")
			assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader)
			assert.Zero(t, r.Bookings.Outstanding(), "an abandoned reservation is not a booking")
		})
	}
}

// A reservation that succeeds only after the request was cancelled is
// late, however the goroutines interleave: the scorer never routes on it
// and the booking is released. Repeated because the losing interleaving is
// rare on an idle machine and common on a loaded one.
func TestReservationSucceedingAfterCancelIsReleased(t *testing.T) {
	for i := 0; i < 200; i++ {
		fake := &rt.Fake{}
		hooks := disagg.HooksFor(fake)
		entered := make(chan struct{})
		hooks.Reserve = func(ctx context.Context, id string, req, pods []byte) (kvrouter.Decision, error) {
			close(entered)
			<-ctx.Done()
			return fake.ReservePrefill(context.Background(), id, req, pods)
		}
		r := newRuntime(t, fake)
		prefill := newPrefill(t, r, hooks, disagg.PrefillParams{})
		ctx, cancel := context.WithCancel(background)
		go func() { <-entered; cancel() }()
		req, cs := newRequest(nil), disaggCycle()
		allZero(t, prefill.Score(ctx, cs, req, endpoints()), 2)
		fake.WaitFor(t, rt.OpRelease, 1)
		require.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader, "iteration %d", i)
		require.False(t, prefillEnabled(cs), "iteration %d", i)
	}
}

func TestScorerWithoutCancelHookDoesNotPanic(t *testing.T) {
	fake := &rt.Fake{}
	hooks := disagg.HooksFor(fake)
	hooks.Cancel = nil
	hooks.Reserve = func(ctx context.Context, id string, _, _ []byte) (kvrouter.Decision, error) {
		<-ctx.Done() // nothing can wake it but the request's end
		return kvrouter.Decision{}, ctx.Err()
	}
	r := newRuntime(t, fake)
	prefill := newPrefill(t, r, hooks, disagg.PrefillParams{})
	ctx, cancel := context.WithCancel(background)
	cancel()
	req, cs := newRequest(nil), disaggCycle()
	require.NotPanics(t, func() { allZero(t, prefill.Score(ctx, cs, req, endpoints()), 2) })
	assert.False(t, prefillEnabled(cs))

	// With no release hook either, the fallback still works.
	hooks.Release = nil
	bare := newPrefill(t, r, hooks, disagg.PrefillParams{})
	ctx2, cancel2 := context.WithCancel(background)
	cancel2()
	require.NotPanics(t, func() { bare.Score(ctx2, disaggCycle(), newRequest(nil), endpoints()) })

	_, err := disagg.NewPrefillScorer("", r, disagg.PrefillHooks{}, disagg.PrefillParams{})
	require.Error(t, err, "reserve is required")
}

// A library without the begin call (the two-call reservation form): the
// scorer reserves without it, and the booking lives on as usual.
func TestReservationWithoutBeginCall(t *testing.T) {
	fake := &rt.Fake{NoBegin: true, BeginFunc: func(string) error { return kvrouter.ErrPrefillReservationUnsupported }}
	r := newRuntime(t, fake)
	hooks := disagg.HooksFor(fake)
	assert.Nil(t, hooks.Begin, "no begin hook where the library has none")
	prefill := newPrefill(t, r, hooks, disagg.PrefillParams{})
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})
	req, cs, eps := newRequest(nil), disaggCycle(), endpoints()
	prefill.Score(background, cs, req, eps)
	decode.Score(background, cs, req, eps)
	id := req.Headers[disagg.BookingIDHeader]
	assert.Equal(t, "3", req.Headers[disagg.PrefillWorkerIDHeader], "reserved, not advisory")
	assert.Equal(t, []string{rt.OpReserve, rt.OpAdd}, fake.Ops(id))
	assert.Zero(t, fake.Count(rt.OpRoutePrefill))
}

func TestConcurrentReservationsBounded(t *testing.T) {
	fake := &rt.Fake{}
	unblock := make(chan struct{})
	var inFlight, peak atomic.Int32
	fake.ReserveFunc = func(context.Context, string, []byte, []byte) (kvrouter.Decision, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-unblock
		return rt.DefaultDecision, nil
	}
	r := newRuntime(t, fake)
	prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{MaxConcurrentReservations: 1, AdmissionTimeoutMilliseconds: 20})

	first, firstCS := newRequest(nil), disaggCycle()
	firstDone := make(chan struct{})
	go func() { defer close(firstDone); prefill.Score(background, firstCS, first, endpoints()) }()
	fake.WaitFor(t, rt.OpReserve, 1) // the only slot is taken

	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, cs := newRequest(nil), disaggCycle()
			allZero(t, prefill.Score(background, cs, req, endpoints()), 2)
			assert.False(t, prefillEnabled(cs), "no slot in time: aggregated")
			assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader)
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, fake.Count(rt.OpBegin), "requests without a slot never reach the router")

	close(unblock)
	<-firstDone
	assert.True(t, prefillEnabled(firstCS))
	assert.Equal(t, "3", first.Headers[disagg.PrefillWorkerIDHeader])
	assert.Equal(t, int32(1), peak.Load())
}

func TestSlowReservationOutlivingAdmissionTimeoutSucceeds(t *testing.T) {
	const admission = 20 * time.Millisecond
	fake := &rt.Fake{}
	fake.ReserveFunc = func(context.Context, string, []byte, []byte) (kvrouter.Decision, error) {
		time.Sleep(5 * admission) // the slot was free at once; the router is slow
		return rt.DefaultDecision, nil
	}
	r := newRuntime(t, fake)
	prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{AdmissionTimeoutMilliseconds: int(admission / time.Millisecond)})
	req, cs := newRequest(nil), disaggCycle()
	scores := prefill.Score(background, cs, req, endpoints())

	assert.True(t, prefillEnabled(cs), "the admission timeout bounds slot acquisition only")
	assert.Equal(t, "3", req.Headers[disagg.PrefillWorkerIDHeader])
	id := req.Headers[disagg.BookingIDHeader]
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve}, fake.Ops(id), "no cancel, no release")
	for _, s := range scores {
		assert.Equal(t, 1.0, s)
	}
	st, err := readBooking(cs)
	require.NoError(t, err)
	assert.True(t, st.PrefillReserved)
	assert.Equal(t, id, st.ID)
}

func TestReservationFailureFallsBackAndReleases(t *testing.T) {
	fake := &rt.Fake{}
	fake.ReserveFunc = func(context.Context, string, []byte, []byte) (kvrouter.Decision, error) {
		return kvrouter.Decision{}, errors.New("code 7 (backpressure)")
	}
	r := newRuntime(t, fake)
	prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{})
	req, cs := newRequest(map[string]string{disagg.PrefillDPRankHeader: "5"}), disaggCycle()
	allZero(t, prefill.Score(background, cs, req, endpoints()), 2)
	id := req.Headers[disagg.BookingIDHeader]
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpRelease}, fake.Ops(id))
	assert.False(t, prefillEnabled(cs))
	assert.NotContains(t, req.Headers, disagg.PrefillDPRankHeader, "client-sent prefill headers never pass")

	// A request without a JSON body is routed aggregated without a call.
	noBody := newRequest(nil)
	noBody.Body = nil
	cs2 := disaggCycle()
	allZero(t, prefill.Score(background, cs2, noBody, endpoints()), 2)
	assert.False(t, prefillEnabled(cs2))
	assert.Equal(t, 1, fake.Count(rt.OpBegin))
}

// As in Dynamo's EPP, the prefill scorer does not reserve for a request the
// profile handler made aggregated.
func TestPrefillSkipsAggregatedRequests(t *testing.T) {
	fake := &rt.Fake{}
	r := newRuntime(t, fake)
	prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{})
	req, cs := newRequest(map[string]string{disagg.PrefillWorkerIDHeader: "999"}), fwksched.NewCycleState()
	cs.Write(disagg.PrefillEnabledKey, &disagg.PrefillEnabled{Enabled: false})
	allZero(t, prefill.Score(background, cs, req, endpoints()), 2)
	assert.Empty(t, fake.Calls())
	assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader, "a client's prefill hint never passes")
}
