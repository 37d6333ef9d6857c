package disagg

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/log"

	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/common/observability/logging"
	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwkrc "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requestcontrol"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/booking"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// DecodeScorerType is the registry key of the decode scorer.
const DecodeScorerType = "dyn-decode-scorer"

// DecodeParams are the decode scorer's plugin parameters.
type DecodeParams struct {
	// WorkerIDLabel is the pod label naming a pod's Dynamo worker ("" off).
	WorkerIDLabel *string `json:"workerIDLabel,omitempty"`
}

// DecodeScorer routes decode, registers the decode booking and follows the
// response to mark prefill complete and free the booking.
type DecodeScorer struct {
	name  fwkplugin.TypedName
	rt    *Runtime
	label string
}

var (
	_ fwksched.Scorer             = (*DecodeScorer)(nil)
	_ fwkrc.ResponseBodyProcessor = (*DecodeScorer)(nil)
)

// NewDecodeScorer builds the scorer over rt.
func NewDecodeScorer(name string, rt *Runtime, params DecodeParams) *DecodeScorer {
	if name == "" {
		name = DecodeScorerType
	}
	label := DefaultWorkerIDLabel
	if params.WorkerIDLabel != nil {
		label = *params.WorkerIDLabel
	}
	return &DecodeScorer{name: fwkplugin.TypedName{Type: DecodeScorerType, Name: name}, rt: rt, label: label}
}

func (s *DecodeScorer) TypedName() fwkplugin.TypedName { return s.name }

// Category: the scorer expresses where the request must go.
func (s *DecodeScorer) Category() fwksched.ScorerCategory { return fwksched.Affinity }

// Score routes decode and registers the booking. A routing or registration
// failure routes the request aggregated: no worker headers, mode
// "aggregated", the prefill reservation (if any) released.
func (s *DecodeScorer) Score(ctx context.Context, cs *fwksched.CycleState, req *fwksched.InferenceRequest, endpoints []fwksched.Endpoint) map[fwksched.Endpoint]float64 {
	logger := log.FromContext(ctx).WithValues("plugin", s.name.String(), "request", req.RequestId)
	if req.Headers == nil {
		req.Headers = map[string]string{}
	}
	deleteHeaders(req.Headers, decodeHeaders...)

	st := bookingState(cs)
	disagg := prefillEnabled(cs) && st != nil && (st.PrefillReserved || st.PrefillAdvisory)
	var b *booking.Booking
	if disagg && st.PrefillReserved {
		b = s.rt.Bookings.Lookup(st.ID, req)
		disagg = b != nil
	}
	if !disagg {
		// Client-sent prefill headers (or those of a reservation given up
		// on) must not reach the frontend.
		deleteHeaders(req.Headers, prefillHeaders...)
	}

	body, err := kvrouter.RequestJSON(req)
	if err != nil {
		logger.V(logutil.DEFAULT).Info("decode routing skipped; routing aggregated", "error", err.Error())
		return s.aggregated(req, b, endpoints)
	}
	pods, err := kvrouter.PodsJSON(endpoints)
	if err != nil {
		logger.Error(err, "encode candidate pods; routing aggregated")
		return s.aggregated(req, b, endpoints)
	}
	if b == nil {
		id := newBookingID()
		if b, err = s.rt.Bookings.Open(id, req); err != nil {
			logger.Error(err, "open booking; routing aggregated")
			return s.aggregated(req, nil, endpoints)
		}
	}
	req.Headers[BookingIDHeader] = b.ID()
	// Armed before any router call: a cancellation from here on ends the
	// booking, and the registration barrier holds its cleanup back.
	b.ArmCancellation(ctx)

	dec, err := s.rt.Router.RouteDecode(ctx, body, pods, disagg)
	if err != nil {
		logger.V(logutil.DEFAULT).Info("decode routing failed; routing aggregated", "booking", b.ID(), "error", err.Error())
		return s.aggregated(req, b, endpoints)
	}
	if err := s.register(b, dec); err != nil {
		logger.V(logutil.DEFAULT).Info("decode registration failed; routing aggregated", "booking", b.ID(), "error", err.Error())
		return s.aggregated(req, b, endpoints)
	}

	mode := ModeAggregated
	if disagg {
		mode = ModeDisaggregated
	}
	setWorker(req.Headers, WorkerIDHeader, DPRankHeader, dec.DecodeWorkerID, dec.DecodeDPRank)
	req.Headers[RoutingModeHeader] = mode
	setTokenData(req, dec.TokenIDs)
	cs.Write(DecodeRoutingKey, &DecodeRouting{BookingID: b.ID(), Mode: mode, Decision: dec})
	logger.V(logutil.DEBUG).Info("decode routed", "booking", b.ID(), "worker", dec.DecodeWorkerID, "mode", mode)
	return scoreWorker(endpoints, s.label, dec.DecodeWorkerID)
}

// register adds the decode booking under the registration barrier, so a
// cleanup triggered meanwhile waits for add_request to return.
func (s *DecodeScorer) register(b *booking.Booking, dec kvrouter.Decision) (err error) {
	finish, err := b.StartRegistration()
	if err != nil {
		return err
	}
	defer func() { finish(err == nil) }()
	if err := s.rt.Router.AddRequest(b.ID(), dec.TokenIDs, dec.DecodeWorkerID, dec.DecodeDPRank, dec.CacheNamespace); err != nil {
		return fmt.Errorf("add request %s (worker %d): %w", b.ID(), dec.DecodeWorkerID, err)
	}
	return nil
}

// aggregated rolls the request back to aggregated routing: the booking (if
// any) ends, which releases a held prefill reservation. Every endpoint
// scores 1, as in Dynamo's EPP: the decode profile still picks one of its
// candidates, and the frontend routes without a worker hint.
func (s *DecodeScorer) aggregated(req *fwksched.InferenceRequest, b *booking.Booking, endpoints []fwksched.Endpoint) map[fwksched.Endpoint]float64 {
	if b != nil {
		b.End()
	}
	deleteHeaders(req.Headers, prefillHeaders...)
	deleteHeaders(req.Headers, decodeHeaders...)
	deleteHeaders(req.Headers, BookingIDHeader)
	req.Headers[RoutingModeHeader] = ModeAggregated
	return uniformScores(endpoints, 1)
}

// ResponseBody follows the response: the first chunk that is not the end
// of the stream marks prefill complete (in the background); the end of the
// stream frees the booking, without waiting for a mark in flight.
func (s *DecodeScorer) ResponseBody(_ context.Context, req *fwksched.InferenceRequest, resp *fwkrc.Response, _ *fwkdl.EndpointMetadata) {
	if req == nil || resp == nil {
		return
	}
	b := s.rt.Bookings.Lookup(req.Headers[BookingIDHeader], req)
	if b == nil {
		return
	}
	if resp.EndOfStream {
		b.End()
		return
	}
	b.FirstChunk()
}
