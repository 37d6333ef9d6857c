package routers

// These tests run against the C API test double (testdata/capi-double);
// build it first with ffi/build-double.sh.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/ffi/internal/capidouble"
)

func openRouters(t *testing.T, enforceDisagg bool) *Routers {
	t.Helper()
	r, err := Open("dynamo", "backend", enforceDisagg)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close()) })
	return r
}

func fnv64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func (r *Routers) outstandingBookings() int64 {
	return capidouble.OutstandingBookings(unsafe.Pointer(r.handle))
}

func (r *Routers) outstandingRequests() int64 {
	return capidouble.OutstandingRequests(unsafe.Pointer(r.handle))
}

var (
	request = []byte(`{"model":"qwen","messages":[{"role":"user","content":"route me"}],"cache_salt":"tenant-a"}`)
	pods    = []byte(`[{"pod":{"podName":"decode-0"}},{"pod":{"podName":"decode-1"}},{"podName":"decode-2"}]`)
)

// expectedPod mirrors the double's rule with Go's own FNV-1a.
func expectedPod(role, prompt string, names ...string) uint64 {
	return fnv64(names[fnv64(role+":"+prompt)%uint64(len(names))])
}

func TestRouteCopiesAndFreesResults(t *testing.T) {
	r := openRouters(t, false)
	outstanding := capidouble.OutstandingRoutingResults()

	pre, err := r.RoutePrefill(context.Background(), request, pods)
	require.NoError(t, err)
	assert.True(t, pre.Disaggregated)
	assert.Equal(t, expectedPod("prefill", "route me", "decode-0", "decode-1", "decode-2"), pre.PrefillWorkerID)
	assert.Equal(t, UnsetDPRank, pre.PrefillDPRank, "the double sets no rank; a 5-field library has none")
	assert.Equal(t, UnsetDPRank, pre.DecodeDPRank)
	if Bound().Result == "9" {
		assert.Equal(t, "tenant-a", pre.CacheNamespace)
	} else {
		assert.Empty(t, pre.CacheNamespace, "a %s-field result has no cache namespace", Bound().Result)
	}
	require.Len(t, pre.TokenIDs, len("route me"))
	assert.Equal(t, uint32('r')+1, pre.TokenIDs[0])

	dec, err := r.RouteDecode(context.Background(), request, nil, true)
	require.NoError(t, err)
	assert.Equal(t, fnv64("decode:route me")%4, dec.DecodeWorkerID, "no pods: hash modulo the worker count")
	assert.True(t, dec.Disaggregated)

	assert.Equal(t, outstanding, capidouble.OutstandingRoutingResults(), "a routing result was not freed")
}

func TestRequestBookkeeping(t *testing.T) {
	r := openRouters(t, false)
	ignored := capidouble.IgnoredCalls()
	require.NoError(t, r.AddRequest("req-1", []uint32{1, 2, 3}, 7, UnsetDPRank, "tenant-a"))
	assert.Equal(t, int64(1), r.outstandingRequests())
	require.NoError(t, r.MarkPrefillComplete("req-1"))
	require.NoError(t, r.FreeRequest("req-1"))
	assert.Equal(t, int64(0), r.outstandingRequests())
	assert.Equal(t, ignored, capidouble.IgnoredCalls(), "every call of a proper lifecycle did something")

	// Dynamo answers Ok to an unknown or duplicate id (the router's error is
	// only logged), so no caller may count on an error there: the double
	// answers Ok too and counts the call as ignored.
	require.NoError(t, r.FreeRequest("req-1"))
	require.NoError(t, r.MarkPrefillComplete("req-1"))
	require.NoError(t, r.AddRequest("req-2", nil, 7, UnsetDPRank, ""))
	require.NoError(t, r.AddRequest("req-2", nil, 8, UnsetDPRank, ""))
	assert.Equal(t, ignored+3, capidouble.IgnoredCalls())
	assert.Equal(t, int64(1), r.outstandingRequests(), "the first registration stays")
}

// Dynamo deprecated enforce_disagg and ignores it at this generation's pin;
// the double does too, so nothing may depend on it being enforced.
func TestEnforceDisaggIsIgnored(t *testing.T) {
	r := openRouters(t, true)
	_, err := r.RouteDecode(context.Background(), request, pods, false)
	require.NoError(t, err)
}

// Pods JSON that does not parse routes without a filter in Dynamo; the
// double counts it, because the EPP must always send a valid list.
func TestMalformedPodsAreAViolation(t *testing.T) {
	r := openRouters(t, false)
	violations := capidouble.Violations()
	_, err := r.RouteDecode(context.Background(), request, []byte(`{"pods":`), false)
	require.NoError(t, err)
	assert.Equal(t, violations+1, capidouble.Violations())
}

func TestCloseWaitsForCallsAndRefusesNewOnes(t *testing.T) {
	t.Setenv("DYNAMO_DOUBLE_QUERY_DELAY_US", "200")
	violations, outstanding := capidouble.Violations(), capidouble.OutstandingRoutingResults()
	r, err := Open("dynamo", "", false)
	require.NoError(t, err)

	const workers = 12
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
				var err error
				if w%2 == 0 && PrefillReservation {
					booking := fmt.Sprintf("w%d-%d", w, i)
					if PrefillReservationBegin {
						err = r.BeginPrefillReservation(booking)
					}
					if err == nil {
						_, err = r.ReservePrefill(context.Background(), booking, request, pods)
					}
				} else {
					_, err = r.RouteDecode(context.Background(), request, pods, false)
				}
				if err != nil {
					errs <- err
					return
				}
				if successes.Add(1) >= 3*workers {
					once.Do(func() { close(enough) })
				}
			}
		}()
	}
	<-enough
	require.NoError(t, r.Close())
	require.NoError(t, r.Close())
	wg.Wait()
	close(errs)

	for err := range errs {
		// A reservation in flight when Close began is cancelled by Close:
		// while it routes (timeout) or, when the cancel reached the library
		// before the call did, before it starts (query failed).
		var callErr *CallError
		cancelled := errors.As(err, &callErr) && callErr.Call == "route_prefill_request_with_reservation" &&
			(callErr.Code == CodeTimeout || callErr.Code == CodeQueryFailed)
		assert.True(t, errors.Is(err, ErrClosed) || cancelled, "unexpected error: %v", err)
	}
	assert.Equal(t, violations, capidouble.Violations(), "a call used a destroyed handle or destroy hit a call in flight")
	assert.Equal(t, outstanding, capidouble.OutstandingRoutingResults())
}

// Each create_routers builds a runtime Dynamo never frees (ManuallyDrop),
// Close included: an EPP must open its routers once per process.
func TestEveryOpenCostsARuntimeThatCloseKeeps(t *testing.T) {
	before := capidouble.RouterRuntimes()
	r := openRouters(t, false)
	require.NoError(t, r.Close())
	openRouters(t, false)
	assert.Equal(t, before+2, capidouble.RouterRuntimes())
}

// The bound variant names one value per axis, as the build tags chose it.
func TestBoundVariantNamesItsTags(t *testing.T) {
	v := Bound()
	assert.Contains(t, []string{"5", "7", "9"}, v.Result)
	assert.Contains(t, []string{"6", "8"}, v.Add)
	assert.Contains(t, []string{"none", "4", "2", "timeout"}, v.Reservation)
	assert.Equal(t, "routers_result_"+v.Result+",routers_add_"+v.Add+",routers_reservation_"+v.Reservation, v.String())
}
