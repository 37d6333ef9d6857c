package disagg_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

// reserved runs the prefill scorer so the request holds a reservation.
func reserved(t *testing.T, ctx context.Context, fake *rt.Fake, r *disagg.Runtime) (*fwksched.InferenceRequest, *fwksched.CycleState) {
	t.Helper()
	req, cs := newRequest(nil), disaggCycle()
	newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{}).Score(ctx, cs, req, endpoints())
	require.True(t, prefillEnabled(cs))
	return req, cs
}

func TestDecodeCancellationWaitsForRegistration(t *testing.T) {
	fake := &rt.Fake{}
	unblock := make(chan struct{})
	fake.AddFunc = func(string) error { <-unblock; return nil }
	r := newRuntime(t, fake)
	ctx, cancel := context.WithCancel(background)
	req, cs := reserved(t, ctx, fake, r)
	id := req.Headers[disagg.BookingIDHeader]
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})

	done := make(chan struct{})
	go func() { defer close(done); decode.Score(ctx, cs, req, endpoints()) }()
	fake.WaitFor(t, rt.OpAdd, 1) // add_request is in the router
	b := r.Bookings.Lookup(id, req)
	require.NotNil(t, b)
	cancel()
	<-b.Ended() // the cancellation reached the booking...
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpAdd}, fake.Ops(id), "...but nothing is freed under a registration")

	close(unblock)
	<-done
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, r)
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpAdd, rt.OpFree}, fake.Ops(id))
}

func TestRegistrationFailureGoesAggregated(t *testing.T) {
	fake := &rt.Fake{AddFunc: func(string) error { return errors.New("add_request: code 4 (query failed)") }}
	r := newRuntime(t, fake)
	req, cs := reserved(t, background, fake, r)
	id := req.Headers[disagg.BookingIDHeader]
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})

	allScore(t, decode.Score(background, cs, req, endpoints()), 2, 1) // Dynamo's decode fallback scores
	assert.Equal(t, disagg.ModeAggregated, req.Headers[disagg.RoutingModeHeader])
	for _, h := range []string{disagg.WorkerIDHeader, disagg.DPRankHeader, disagg.PrefillWorkerIDHeader, disagg.PrefillDPRankHeader, disagg.BookingIDHeader} {
		assert.NotContains(t, req.Headers, h)
	}
	fake.WaitFor(t, rt.OpRelease, 1)
	settle(t, r)
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpAdd, rt.OpRelease}, fake.Ops(id), "the reservation is released, nothing freed")

	// The response of a request rolled back has nothing to clean up.
	decode.ResponseBody(background, req, chunk(true), nil)
	assert.Zero(t, fake.Count(rt.OpFree))
}

func TestDecodeAggregatedWithoutPrefill(t *testing.T) {
	fake := &rt.Fake{}
	r := newRuntime(t, fake)
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})
	req := newRequest(map[string]string{disagg.PrefillWorkerIDHeader: "42"})
	cs := fwksched.NewCycleState() // no prefill profile ran
	decode.Score(background, cs, req, endpoints())

	calls := fake.Calls()
	require.Len(t, calls, 2)
	assert.Equal(t, rt.OpRouteDecode, calls[0].Op)
	assert.False(t, calls[0].Disaggregated)
	assert.JSONEq(t, `{"model":"qwen","messages":[{"role":"user","content":"route me"}]}`, calls[0].Request, "the full body is routed")
	assert.Equal(t, rt.OpAdd, calls[1].Op)
	assert.Regexp(t, uuidV4, calls[1].ID)
	assert.Equal(t, disagg.ModeAggregated, req.Headers[disagg.RoutingModeHeader])
	assert.Equal(t, "7", req.Headers[disagg.WorkerIDHeader])
	assert.Equal(t, "1", req.Headers[disagg.DPRankHeader])
	assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader)
}

// The router's tokenisation travels in the forwarded body as
// nvext.token_data, next to whatever nvext the client sent; the EPP
// re-serialises the parsed payload after scheduling.
func TestDecodeWritesTokenDataIntoTheForwardedBody(t *testing.T) {
	payloadJSON := func(req *fwksched.InferenceRequest) string {
		b, err := json.Marshal(req.Body.Payload)
		require.NoError(t, err)
		return string(b)
	}
	cases := []struct {
		name  string
		nvext any // nil: no nvext in the client's body
		fail  bool
		want  string
	}{
		{"no nvext", nil, false, `{"model":"qwen","messages":[{"role":"user","content":"route me"}],"nvext":{"token_data":[11,12,13]}}`},
		{"client nvext kept, its token_data replaced", map[string]any{"keep": 1, "token_data": []any{99}}, false,
			`{"model":"qwen","messages":[{"role":"user","content":"route me"}],"nvext":{"keep":1,"token_data":[11,12,13]}}`},
		{"nvext not an object is replaced", "opaque", false, `{"model":"qwen","messages":[{"role":"user","content":"route me"}],"nvext":{"token_data":[11,12,13]}}`},
		{"nvext null is replaced", json.RawMessage(nil), false, `{"model":"qwen","messages":[{"role":"user","content":"route me"}],"nvext":{"token_data":[11,12,13]}}`},
		{"registration failed: body untouched", nil, true, `{"model":"qwen","messages":[{"role":"user","content":"route me"}]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := &rt.Fake{}
			if c.fail {
				fake.AddFunc = func(string) error { return errors.New("add_request: code 4 (query failed)") }
			}
			r := newRuntime(t, fake)
			req := newRequest(nil)
			switch v := c.nvext.(type) {
			case nil:
			case json.RawMessage: // the client sent "nvext": null
				req.Body.Payload.(fwkrh.PayloadMap)["nvext"] = nil
			default:
				req.Body.Payload.(fwkrh.PayloadMap)["nvext"] = v
			}
			disagg.NewDecodeScorer("", r, disagg.DecodeParams{}).Score(background, fwksched.NewCycleState(), req, endpoints())
			assert.JSONEq(t, c.want, payloadJSON(req))
			if c.fail {
				assert.Nil(t, disagg.TokenizedPromptIDs(req))
			} else {
				assert.Equal(t, []uint32{11, 12, 13}, disagg.TokenizedPromptIDs(req), "later plugins see the router's tokens")
			}
			assert.NotContains(t, fake.Calls()[0].Request, "11,12,13", "the router sees the client's body")
		})
	}

	// A raw payload is forwarded byte for byte.
	r := newRuntime(t, &rt.Fake{})
	req := newRequest(nil)
	raw := fwkrh.RawPayload(`{"model":"qwen","prompt":"hi"}`)
	req.Body.Payload = raw
	disagg.NewDecodeScorer("", r, disagg.DecodeParams{}).Score(background, fwksched.NewCycleState(), req, endpoints())
	assert.Equal(t, raw, req.Body.Payload)
	assert.Equal(t, "7", req.Headers[disagg.WorkerIDHeader], "routing itself still happened")
}

// #11991: the router tokenises the body with the model GAIE resolved for
// the request, not the alias the client sent; the forwarded body keeps it.
func TestDecodeRoutesWithTheTargetModel(t *testing.T) {
	fake := &rt.Fake{}
	r := newRuntime(t, fake)
	req := newRequest(nil)
	req.TargetModel = "qwen-canary"
	disagg.NewDecodeScorer("", r, disagg.DecodeParams{}).Score(background, fwksched.NewCycleState(), req, endpoints())
	assert.JSONEq(t, `{"model":"qwen-canary","messages":[{"role":"user","content":"route me"}]}`, fake.Calls()[0].Request)
	assert.Equal(t, "qwen", req.Body.Payload.(fwkrh.PayloadMap)["model"])
}

func TestDecodeRoutingFailureReleasesReservation(t *testing.T) {
	fake := &rt.Fake{RouteDecodeFunc: func(context.Context, []byte, []byte, bool) (kvrouter.Decision, error) {
		return kvrouter.Decision{}, errors.New("code 5 (disaggregated serving enforced but unavailable)")
	}}
	r := newRuntime(t, fake)
	req, cs := reserved(t, background, fake, r)
	id := req.Headers[disagg.BookingIDHeader]
	allScore(t, disagg.NewDecodeScorer("", r, disagg.DecodeParams{}).Score(background, cs, req, endpoints()), 2, 1)
	fake.WaitFor(t, rt.OpRelease, 1)
	settle(t, r)
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpRelease}, fake.Ops(id))
	assert.Equal(t, disagg.ModeAggregated, req.Headers[disagg.RoutingModeHeader])
}

func TestResponseBodyMarksFirstChunkAndFreesAtEnd(t *testing.T) {
	fake := &rt.Fake{}
	var mu sync.Mutex
	failures := 1
	fake.MarkFunc = func(string) error {
		mu.Lock()
		defer mu.Unlock()
		if failures > 0 {
			failures--
			return errors.New("transient")
		}
		return nil
	}
	r := newRuntime(t, fake)
	req, cs := reserved(t, background, fake, r)
	id := req.Headers[disagg.BookingIDHeader]
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})
	decode.Score(background, cs, req, endpoints())

	decode.ResponseBody(background, req, chunk(false), nil)
	decode.ResponseBody(background, req, chunk(false), nil)
	fake.WaitFor(t, rt.OpMark, 2) // one transient failure, one retry
	decode.ResponseBody(background, req, chunk(true), nil)
	decode.ResponseBody(background, req, chunk(true), nil) // the forced completion after the stream closes
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, r)
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpAdd, rt.OpMark, rt.OpMark, rt.OpFree}, fake.Ops(id))
}

func TestEmptyTerminalResponseFreesWithoutMarking(t *testing.T) {
	fake := &rt.Fake{}
	r := newRuntime(t, fake)
	req, cs := reserved(t, background, fake, r)
	id := req.Headers[disagg.BookingIDHeader]
	decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})
	decode.Score(background, cs, req, endpoints())
	decode.ResponseBody(background, req, chunk(true), nil)
	fake.WaitFor(t, rt.OpFree, 1)
	settle(t, r)
	assert.Equal(t, []string{rt.OpBegin, rt.OpReserve, rt.OpAdd, rt.OpFree}, fake.Ops(id))
}

func TestWorkerLabelSelectsEndpoint(t *testing.T) {
	fake := &rt.Fake{}
	r := newRuntime(t, fake)
	eps := endpoints("pod-a", "pod-b")
	eps[1].GetMetadata().Labels = map[string]string{disagg.DefaultWorkerIDLabel: "7"}
	scores := disagg.NewDecodeScorer("", r, disagg.DecodeParams{}).Score(background, fwksched.NewCycleState(), newRequest(nil), eps)
	assert.Equal(t, 0.0, scores[eps[0]])
	assert.Equal(t, 1.0, scores[eps[1]])
}
