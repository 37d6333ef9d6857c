package disagg_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/plugins/scheduling/picker/maxscore"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	rt "github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter/kvroutertest"
)

type stubProfile struct{ name string }

func (stubProfile) Run(context.Context, *fwksched.InferenceRequest, *fwksched.CycleState, []fwksched.Endpoint) (*fwksched.ProfileRunResult, error) {
	return nil, errors.New("not run in this test")
}

func names(m map[string]fwksched.SchedulerProfile) []string {
	var out []string
	for n := range m {
		out = append(out, n)
	}
	return out
}

func TestProfileHandlerPrefillThenDecode(t *testing.T) {
	h := disagg.NewProfileHandler("", disagg.ProfileHandlerParams{})
	profiles := map[string]fwksched.SchedulerProfile{"prefill": stubProfile{}, "decode": stubProfile{}}
	cs := fwksched.NewCycleState()
	results := map[string]*fwksched.ProfileRunResult{}

	assert.Equal(t, []string{"prefill"}, names(h.Pick(background, cs, nil, profiles, results)))
	assert.True(t, prefillEnabled(cs))
	results["prefill"] = &fwksched.ProfileRunResult{TargetEndpoints: endpoints("p")}
	assert.Equal(t, []string{"decode"}, names(h.Pick(background, cs, nil, profiles, results)))
	assert.True(t, prefillEnabled(cs))
	results["decode"] = &fwksched.ProfileRunResult{TargetEndpoints: endpoints("d")}
	assert.Empty(t, h.Pick(background, cs, nil, profiles, results))

	res, err := h.ProcessResults(background, cs, nil, results)
	require.NoError(t, err)
	assert.Equal(t, "decode", res.PrimaryProfileName)
	assert.Len(t, res.ProfileResults, 2)
}

func TestProfileHandlerFallsBackWhenPrefillYieldsNothing(t *testing.T) {
	h := disagg.NewProfileHandler("", disagg.ProfileHandlerParams{})
	profiles := map[string]fwksched.SchedulerProfile{"prefill": stubProfile{}, "decode": stubProfile{}}
	cs := fwksched.NewCycleState()
	h.Pick(background, cs, nil, profiles, nil)
	results := map[string]*fwksched.ProfileRunResult{"prefill": nil} // the profile failed
	assert.Equal(t, []string{"decode"}, names(h.Pick(background, cs, nil, profiles, results)))
	assert.False(t, prefillEnabled(cs), "aggregated")
	results["decode"] = &fwksched.ProfileRunResult{TargetEndpoints: endpoints("d")}
	res, err := h.ProcessResults(background, cs, nil, results)
	require.NoError(t, err)
	assert.Equal(t, []string{"decode"}, keys(res.ProfileResults))
}

func TestProfileHandlerWithoutPrefillProfile(t *testing.T) {
	h := disagg.NewProfileHandler("", disagg.ProfileHandlerParams{DecodeProfile: "main"})
	profiles := map[string]fwksched.SchedulerProfile{"main": stubProfile{}}
	cs := fwksched.NewCycleState()
	assert.Equal(t, []string{"main"}, names(h.Pick(background, cs, nil, profiles, nil)))
	assert.False(t, prefillEnabled(cs))

	_, err := h.ProcessResults(background, cs, &fwksched.InferenceRequest{RequestId: "r1"}, map[string]*fwksched.ProfileRunResult{"main": nil})
	require.ErrorContains(t, err, `decode profile "main" picked no endpoint for request r1`)

	_, err = disagg.ProfileHandlerFactory("h", []byte(`{"prefillProfile":"x","decodeProfile":"x"}`), nil)
	require.ErrorContains(t, err, "must differ")
}

func keys(m map[string]*fwksched.ProfileRunResult) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The plugins inside GAIE's own scheduler: the handler drives both
// profiles, the scorers book, decode is the primary result.
func TestSchedulerCycleThroughGAIE(t *testing.T) {
	for _, tc := range []struct {
		name        string
		reserveErr  error
		wantDisagg  bool
		wantResults int
	}{
		{"disaggregated", nil, true, 2},
		{"reservation fails: aggregated", errors.New("code 7"), false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &rt.Fake{}
			if tc.reserveErr != nil {
				fake.ReserveFunc = func(context.Context, string, []byte, []byte) (kvrouter.Decision, error) {
					return kvrouter.Decision{}, tc.reserveErr
				}
			}
			r := newRuntime(t, fake)
			prefill := newPrefill(t, r, disagg.HooksFor(fake), disagg.PrefillParams{})
			decode := disagg.NewDecodeScorer("", r, disagg.DecodeParams{})
			profiles := map[string]fwksched.SchedulerProfile{
				"prefill": scheduling.NewSchedulerProfile().WithScorers(scheduling.NewWeightedScorer(prefill, 1)).WithPicker(maxscore.NewMaxScorePicker(1)),
				"decode":  scheduling.NewSchedulerProfile().WithScorers(scheduling.NewWeightedScorer(decode, 1)).WithPicker(maxscore.NewMaxScorePicker(1)),
			}
			s := scheduling.NewSchedulerWithConfig(scheduling.NewSchedulerConfig(disagg.NewProfileHandler("", disagg.ProfileHandlerParams{}), profiles))
			req := newRequest(nil)
			res, err := s.Schedule(background, req, endpoints())
			require.NoError(t, err)
			assert.Equal(t, "decode", res.PrimaryProfileName)
			assert.Len(t, res.ProfileResults, tc.wantResults)

			calls := fake.Calls()
			var decodeCall rt.Call
			for _, c := range calls {
				if c.Op == rt.OpRouteDecode {
					decodeCall = c
				}
			}
			assert.Equal(t, tc.wantDisagg, decodeCall.Disaggregated)
			assert.Equal(t, "7", req.Headers[disagg.WorkerIDHeader])
			if tc.wantDisagg {
				assert.Equal(t, disagg.ModeDisaggregated, req.Headers[disagg.RoutingModeHeader])
				assert.Equal(t, "3", req.Headers[disagg.PrefillWorkerIDHeader])
			} else {
				assert.Equal(t, disagg.ModeAggregated, req.Headers[disagg.RoutingModeHeader])
				assert.NotContains(t, req.Headers, disagg.PrefillWorkerIDHeader)
			}
			decode.ResponseBody(background, req, chunk(true), nil)
			fake.WaitFor(t, rt.OpFree, 1)
			settle(t, r)
		})
	}
}
