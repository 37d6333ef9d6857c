package disagg

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/log"

	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/common/observability/logging"
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// PrefillScorerType is the registry key of the prefill scorer.
const PrefillScorerType = "dyn-prefill-scorer"

// PrefillParams are the prefill scorer's plugin parameters.
type PrefillParams struct {
	// MaxConcurrentReservations bounds reservations in flight: each one is
	// a blocking call into the library (default 64).
	MaxConcurrentReservations int `json:"maxConcurrentReservations"`
	// AdmissionTimeoutMilliseconds bounds the wait for a reservation slot
	// only (default 1000); the reservation itself is bounded by
	// ReservationTimeoutSeconds and the request's context.
	AdmissionTimeoutMilliseconds int `json:"admissionTimeoutMilliseconds"`
	// ReservationTimeoutSeconds bounds the reservation call (default 60).
	ReservationTimeoutSeconds int `json:"reservationTimeoutSeconds"`
	// WorkerIDLabel is the pod label naming a pod's Dynamo worker ("" off).
	WorkerIDLabel *string `json:"workerIDLabel,omitempty"`
}

func (p PrefillParams) withDefaults() PrefillParams {
	if p.MaxConcurrentReservations <= 0 {
		p.MaxConcurrentReservations = 64
	}
	if p.AdmissionTimeoutMilliseconds <= 0 {
		p.AdmissionTimeoutMilliseconds = 1000
	}
	if p.ReservationTimeoutSeconds <= 0 {
		p.ReservationTimeoutSeconds = 60
	}
	if p.WorkerIDLabel == nil {
		l := DefaultWorkerIDLabel
		p.WorkerIDLabel = &l
	}
	return p
}

// PrefillHooks are the reservation calls. Reserve is required; Begin,
// Cancel and Release are optional and every use of them is nil-checked.
// Without Begin the reserve call opens the booking itself (the two-call
// reservation form: Dynamo's prefill scorer treats begin as optional too);
// without Cancel or Release a scorer still falls back cleanly, it just
// cannot wake or drop a reservation it gave up on.
type PrefillHooks struct {
	Begin   func(id string) error
	Reserve func(ctx context.Context, id string, request, pods []byte) (kvrouter.Decision, error)
	Cancel  func(id string) error
	Release func(id string) error
	// Advisory picks a prefill worker without holding its load; used when
	// the reservation calls are unsupported (optional).
	Advisory func(ctx context.Context, request, pods []byte) (kvrouter.Decision, error)
}

// HooksFor takes the reservation calls from router, leaving Begin out
// when the router's library has no begin call (kvrouter.ReservationBegin).
func HooksFor(router kvrouter.Router) PrefillHooks {
	hooks := PrefillHooks{
		Begin:    router.BeginPrefillReservation,
		Reserve:  router.ReservePrefill,
		Cancel:   router.CancelPrefillReservation,
		Release:  router.ReleasePrefillReservation,
		Advisory: router.RoutePrefill,
	}
	if b, ok := router.(kvrouter.ReservationBegin); ok && !b.HasPrefillReservationBegin() {
		hooks.Begin = nil
	}
	return hooks
}

// PrefillScorer reserves a prefill worker for the request. Any failure
// falls back to aggregated routing: PrefillEnabled is cleared, the prefill
// headers are removed and every endpoint scores 0.
type PrefillScorer struct {
	name      fwkplugin.TypedName
	rt        *Runtime
	hooks     PrefillHooks
	params    PrefillParams
	slots     chan struct{} // admission semaphore
	admission time.Duration
	reserve   time.Duration
}

var _ fwksched.Scorer = (*PrefillScorer)(nil)

// NewPrefillScorer builds the scorer over rt with the given hooks (see
// HooksFor).
func NewPrefillScorer(name string, rt *Runtime, hooks PrefillHooks, params PrefillParams) (*PrefillScorer, error) {
	if hooks.Reserve == nil {
		return nil, errors.New(PrefillScorerType + ": the reserve hook is required")
	}
	if name == "" {
		name = PrefillScorerType
	}
	params = params.withDefaults()
	return &PrefillScorer{
		name:      fwkplugin.TypedName{Type: PrefillScorerType, Name: name},
		rt:        rt,
		hooks:     hooks,
		params:    params,
		slots:     make(chan struct{}, params.MaxConcurrentReservations),
		admission: time.Duration(params.AdmissionTimeoutMilliseconds) * time.Millisecond,
		reserve:   time.Duration(params.ReservationTimeoutSeconds) * time.Second,
	}, nil
}

func (s *PrefillScorer) TypedName() fwkplugin.TypedName { return s.name }

// Category: the scorer expresses where the request must go.
func (s *PrefillScorer) Category() fwksched.ScorerCategory { return fwksched.Affinity }

// Score mints the booking id, reserves a prefill worker and points the
// prefill headers at it.
func (s *PrefillScorer) Score(ctx context.Context, cs *fwksched.CycleState, req *fwksched.InferenceRequest, endpoints []fwksched.Endpoint) map[fwksched.Endpoint]float64 {
	logger := log.FromContext(ctx).WithValues("plugin", s.name.String())
	if req.Headers == nil {
		req.Headers = map[string]string{}
	}
	deleteHeaders(req.Headers, prefillHeaders...)
	if prefillDisabled(cs) {
		// The profile handler made this request aggregated: no
		// reservation, neutral scores (as Dynamo's scorer does).
		return uniformScores(endpoints, 0)
	}
	id := newBookingID()
	req.Headers[BookingIDHeader] = id
	cs.Write(BookingKey, &BookingState{ID: id})

	// Encoded once: the advisory route takes the same request and pods
	// when the library has no reservation calls.
	body, pods, err := routerInputs(req, endpoints)
	if err != nil {
		logger.V(logutil.DEFAULT).Info("prefill routing skipped; routing aggregated", "booking", id, "request", req.RequestId, "error", err.Error())
		return s.fallBack(cs, req, endpoints)
	}
	dec, err := s.reservePrefill(ctx, id, body, pods)
	if errors.Is(err, kvrouter.ErrPrefillReservationUnsupported) && s.hooks.Advisory != nil {
		return s.advisory(ctx, cs, req, endpoints, body, pods)
	}
	if err != nil {
		logger.V(logutil.DEFAULT).Info("prefill reservation failed; routing aggregated", "booking", id, "request", req.RequestId, "error", err.Error())
		return s.fallBack(cs, req, endpoints)
	}
	b, err := s.rt.Bookings.Open(id, req)
	if err != nil { // cannot happen for a fresh random id; never leak the reservation
		s.release(ctx, id)
		logger.Error(err, "open booking")
		return s.fallBack(cs, req, endpoints)
	}
	b.SetPrefillReserved()
	b.ArmCancellation(ctx)
	cs.Write(BookingKey, &BookingState{ID: id, PrefillReserved: true, Prefill: dec})
	setWorker(req.Headers, PrefillWorkerIDHeader, PrefillDPRankHeader, dec.PrefillWorkerID, dec.PrefillDPRank)
	logger.V(logutil.DEBUG).Info("prefill reserved", "booking", id, "worker", dec.PrefillWorkerID)
	return scoreWorker(endpoints, *s.params.WorkerIDLabel, dec.PrefillWorkerID)
}

// advisory routes prefill as Dynamo's release EPP does when the library
// has no reservation calls: route_prefill_request picks the worker and
// nothing holds its load until the decode side registers the request.
func (s *PrefillScorer) advisory(ctx context.Context, cs *fwksched.CycleState, req *fwksched.InferenceRequest, endpoints []fwksched.Endpoint, body, pods []byte) map[fwksched.Endpoint]float64 {
	logger := log.FromContext(ctx).WithValues("plugin", s.name.String())
	dec, err := s.hooks.Advisory(ctx, body, pods)
	if err != nil {
		logger.V(logutil.DEFAULT).Info("prefill routing failed; routing aggregated", "request", req.RequestId, "error", err.Error())
		return s.fallBack(cs, req, endpoints)
	}
	st := bookingState(cs)
	cs.Write(BookingKey, &BookingState{ID: st.ID, PrefillAdvisory: true, Prefill: dec})
	setWorker(req.Headers, PrefillWorkerIDHeader, PrefillDPRankHeader, dec.PrefillWorkerID, dec.PrefillDPRank)
	return scoreWorker(endpoints, *s.params.WorkerIDLabel, dec.PrefillWorkerID)
}

func (s *PrefillScorer) fallBack(cs *fwksched.CycleState, req *fwksched.InferenceRequest, endpoints []fwksched.Endpoint) map[fwksched.Endpoint]float64 {
	setPrefillEnabled(cs, false)
	deleteHeaders(req.Headers, prefillHeaders...)
	if st := bookingState(cs); st != nil {
		cs.Write(BookingKey, &BookingState{ID: st.ID})
	}
	return uniformScores(endpoints, 0)
}

// routerInputs encodes what the router is asked about: the request body
// and the candidate pods.
func routerInputs(req *fwksched.InferenceRequest, endpoints []fwksched.Endpoint) (body, pods []byte, err error) {
	if body, err = kvrouter.RequestJSON(req); err != nil {
		return nil, nil, err
	}
	if pods, err = kvrouter.PodsJSON(endpoints); err != nil {
		return nil, nil, fmt.Errorf("encode candidate pods: %w", err)
	}
	return body, pods, nil
}

// Errors of reservePrefill that callers (and tests) branch on.
var (
	ErrAdmissionTimeout   = errors.New("no reservation slot within the admission timeout (maxConcurrentReservations reservations in flight)")
	ErrReservationAborted = errors.New("reservation abandoned: the request was cancelled or the reservation timed out")
)

type reserveOutcome struct {
	dec kvrouter.Decision
	err error
}

// reservePrefill waits for a slot (bounded by the admission timeout),
// begins the booking (where the library has a begin call) and reserves. Once a slot is held the admission
// timeout no longer applies: a slow reservation may finish as long as the
// request lives and the reservation timeout allows.
func (s *PrefillScorer) reservePrefill(ctx context.Context, id string, body, pods []byte) (kvrouter.Decision, error) {
	if err := s.acquireSlot(ctx); err != nil {
		return kvrouter.Decision{}, err
	}
	slotHeld := true
	defer func() {
		if slotHeld {
			<-s.slots
		}
	}()
	if s.hooks.Begin != nil {
		if err := s.hooks.Begin(id); err != nil {
			return kvrouter.Decision{}, fmt.Errorf("begin booking %s: %w", id, err)
		}
	}

	rctx, cancel := context.WithTimeout(ctx, s.reserve)
	defer cancel()
	// Whoever flips claimed first owns the outcome: the scorer (it got the
	// result in time) or the reservation goroutine (the scorer gave up, so
	// the goroutine releases whatever the late call reserved).
	var claimed atomic.Bool
	done := make(chan reserveOutcome, 1)
	slotHeld = false // the goroutine holds the slot until the call returns
	go func() {
		defer func() { <-s.slots }()
		dec, err := s.hooks.Reserve(rctx, id, body, pods)
		// A result that returns after the scorer's deadline or the request's
		// cancellation is late even if the scorer has not noticed yet: the
		// request must not route on a reservation it already gave up.
		if rctx.Err() == nil && claimed.CompareAndSwap(false, true) {
			done <- reserveOutcome{dec, err}
			return
		}
		s.release(ctx, id)
	}()

	select {
	case out := <-done:
		if out.err != nil {
			s.release(ctx, id) // the booking was begun: drop it
			return kvrouter.Decision{}, fmt.Errorf("reserve prefill for booking %s: %w", id, out.err)
		}
		return out.dec, nil
	case <-rctx.Done():
		if !claimed.CompareAndSwap(false, true) {
			out := <-done // the result is already on its way
			if out.err != nil {
				s.release(ctx, id)
				return kvrouter.Decision{}, fmt.Errorf("reserve prefill for booking %s: %w", id, out.err)
			}
			return out.dec, nil
		}
		// Cancel wakes the call if it waits for admission in the library;
		// the goroutine releases the late result. Never a free here: the
		// booking has no decode registration to free.
		if s.hooks.Cancel != nil {
			if err := s.hooks.Cancel(id); err != nil {
				log.FromContext(ctx).V(logutil.DEFAULT).Info("cancel prefill reservation failed", "booking", id, "error", err.Error())
			}
		}
		return kvrouter.Decision{}, fmt.Errorf("booking %s: %w (%w)", id, ErrReservationAborted, context.Cause(rctx))
	}
}

// acquireSlot waits for a reservation slot for at most the admission
// timeout.
func (s *PrefillScorer) acquireSlot(ctx context.Context) error {
	t := time.NewTimer(s.admission)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-t.C:
		return ErrAdmissionTimeout
	case <-ctx.Done():
		return fmt.Errorf("waiting for a reservation slot: %w", context.Cause(ctx))
	}
}

// release drops a booking the scorer gave up on. A failure is only
// logged: the router's reaper drops stale bookings.
func (s *PrefillScorer) release(ctx context.Context, id string) {
	if s.hooks.Release == nil {
		return
	}
	if err := s.hooks.Release(id); err != nil {
		log.FromContext(ctx).V(logutil.DEFAULT).Info("release prefill reservation failed", "booking", id, "error", err.Error())
	}
}
