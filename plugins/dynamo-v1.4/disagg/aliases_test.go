package disagg_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

// Every name some Dynamo frontend reads a worker or rank from: 1.3/1.4's
// x-dynamo-* names and their fallbacks, 1.2's unprefixed names. A value a
// client sent under a name this line's frontend reads must not reach it:
// the EPP alone picks.
var clientRoutingHeaders = map[string]string{
	"x-dynamo-worker-instance-id":  "999",
	"x-dynamo-dp-rank":             "999",
	"x-dynamo-prefill-instance-id": "999",
	"x-dynamo-prefill-dp-rank":     "999",
	"x-worker-instance-id":         "999",
	"x-dp-rank":                    "999",
	"x-data-parallel-rank":         "999",
	"x-prefill-instance-id":        "999",
	"x-prefill-dp-rank":            "999",
}

func withClientRoutingHeaders() map[string]string {
	h := map[string]string{}
	for k, v := range clientRoutingHeaders {
		h[k] = v
	}
	return h
}

func assertNoClientRouting(t *testing.T, h map[string]string) {
	t.Helper()
	for _, name := range frontendReads {
		assert.NotEqual(t, "999", h[name], "the client's %s reached the frontend", name)
	}
}

func TestEveryFrontendRoutingHeaderIsCovered(t *testing.T) {
	for _, name := range frontendReads {
		assert.Contains(t, clientRoutingHeaders, name, "the test sends a client value under every name the frontend reads")
	}
	assert.Contains(t, frontendReads, disagg.WorkerIDHeader, "the frontend reads the plugins' own names")
	assert.Contains(t, frontendReads, disagg.PrefillWorkerIDHeader)
}

func TestClientRoutingHeadersNeverPass(t *testing.T) {
	t.Run("decode routed aggregated", func(t *testing.T) {
		r := newRuntime(t, &rt.Fake{})
		req := newRequest(withClientRoutingHeaders())
		disagg.NewDecodeScorer("", r, disagg.DecodeParams{}).Score(background, fwksched.NewCycleState(), req, endpoints())
		assert.Equal(t, "7", req.Headers[disagg.WorkerIDHeader], "the EPP's own pick")
		assertNoClientRouting(t, req.Headers)
	})
	t.Run("decode router failure", func(t *testing.T) {
		fake := &rt.Fake{}
		fake.RouteDecodeFunc = func(context.Context, []byte, []byte, bool) (kvrouter.Decision, error) {
			return kvrouter.Decision{}, errors.New("code 4 (query failed)")
		}
		r := newRuntime(t, fake)
		req := newRequest(withClientRoutingHeaders())
		disagg.NewDecodeScorer("", r, disagg.DecodeParams{}).Score(background, fwksched.NewCycleState(), req, endpoints())
		assert.Equal(t, disagg.ModeAggregated, req.Headers[disagg.RoutingModeHeader])
		assertNoClientRouting(t, req.Headers)
	})
	t.Run("prefill skipped", func(t *testing.T) {
		fake := &rt.Fake{}
		r := newRuntime(t, fake)
		prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{})
		req, cs := newRequest(withClientRoutingHeaders()), fwksched.NewCycleState()
		cs.Write(disagg.PrefillEnabledKey, &disagg.PrefillEnabled{Enabled: false})
		prefill.Score(background, cs, req, endpoints())
		// The prefill scorer owns the prefill names; the decode scorer,
		// which runs next, the others.
		for _, name := range frontendReads {
			if strings.Contains(name, "prefill") {
				assert.NotContains(t, req.Headers, name)
			}
		}
	})
}
