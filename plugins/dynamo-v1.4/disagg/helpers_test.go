package disagg_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	fwkdl "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/datalayer"
	fwkrc "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requestcontrol"
	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/booking"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

func newRuntime(t *testing.T, fake *rt.Fake) *disagg.Runtime {
	t.Helper()
	r := disagg.NewRuntime(fake, booking.Options{
		MarkBackoff: time.Millisecond, FreeBackoff: time.Millisecond, ReconcileEvery: time.Hour,
	})
	t.Cleanup(r.Bookings.Close)
	return r
}

func newRequest(headers map[string]string) *fwksched.InferenceRequest {
	if headers == nil {
		headers = map[string]string{}
	}
	return &fwksched.InferenceRequest{
		RequestId:   "req-from-gateway",
		TargetModel: "qwen",
		Headers:     headers,
		Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.PayloadMap{
			"model":    "qwen",
			"messages": []any{map[string]any{"role": "user", "content": "route me"}},
		}},
	}
}

func endpoints(names ...string) []fwksched.Endpoint {
	if len(names) == 0 {
		names = []string{"pod-a", "pod-b"}
	}
	out := make([]fwksched.Endpoint, len(names))
	for i, n := range names {
		out[i] = fwksched.NewEndpoint(&fwkdl.EndpointMetadata{PodName: n, Address: "10.0.0." + string(rune('1'+i)), Port: "8000"}, fwkdl.NewMetrics(), nil)
	}
	return out
}

// disaggCycle is the cycle state the profile handler leaves for a config
// with a prefill profile.
func disaggCycle() *fwksched.CycleState {
	cs := fwksched.NewCycleState()
	cs.Write(disagg.PrefillEnabledKey, &disagg.PrefillEnabled{Enabled: true})
	return cs
}

func prefillEnabled(cs *fwksched.CycleState) bool {
	st, err := fwksched.ReadCycleStateKey[*disagg.PrefillEnabled](cs, disagg.PrefillEnabledKey)
	return err == nil && st.Enabled
}

func newPrefill(t *testing.T, r *disagg.Runtime, hooks disagg.PrefillHooks, p disagg.PrefillParams) *disagg.PrefillScorer {
	t.Helper()
	s, err := disagg.NewPrefillScorer("", r, hooks, p)
	require.NoError(t, err)
	return s
}

func chunk(end bool) *fwkrc.Response {
	return &fwkrc.Response{RequestId: "req-from-gateway", EndOfStream: end}
}

// settle waits until the runtime owns no booking.
func settle(t *testing.T, r *disagg.Runtime) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.Bookings.Outstanding() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("bookings still outstanding: %d", r.Bookings.Outstanding())
		}
		time.Sleep(time.Millisecond)
	}
}

func allZero(t *testing.T, scores map[fwksched.Endpoint]float64, n int) {
	t.Helper()
	allScore(t, scores, n, 0)
}

func allScore(t *testing.T, scores map[fwksched.Endpoint]float64, n int, want float64) {
	t.Helper()
	require.Len(t, scores, n)
	for ep, s := range scores {
		require.Equal(t, want, s, "endpoint %s", ep.GetMetadata().PodName)
	}
}

var background = context.Background()
