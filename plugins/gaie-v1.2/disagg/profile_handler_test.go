package disagg

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

func keys(m map[string]*framework.SchedulerProfile) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestPickRunsPrefillThenDecode(t *testing.T) {
	h := NewProfileHandler("h")
	ctx := context.Background()
	profiles := map[string]*framework.SchedulerProfile{PrefillProfile: framework.NewSchedulerProfile(), DecodeProfile: framework.NewSchedulerProfile()}
	cs := schedtypes.NewCycleState()
	results := map[string]*schedtypes.ProfileRunResult{}

	assert.Equal(t, []string{PrefillProfile}, keys(h.Pick(ctx, cs, nil, profiles, results)))
	assert.True(t, PrefillEnabled(cs))

	results[PrefillProfile] = &schedtypes.ProfileRunResult{TargetPods: pods("p")}
	assert.Equal(t, []string{DecodeProfile}, keys(h.Pick(ctx, cs, nil, profiles, results)))
	assert.True(t, PrefillEnabled(cs), "a prefill pod was found: disaggregated")

	results[DecodeProfile] = &schedtypes.ProfileRunResult{TargetPods: pods("d")}
	assert.Empty(t, h.Pick(ctx, cs, nil, profiles, results))

	res, err := h.ProcessResults(ctx, cs, nil, results)
	require.NoError(t, err)
	assert.Equal(t, DecodeProfile, res.PrimaryProfileName)
	assert.Len(t, res.ProfileResults, 2)
}

func TestPickFallsBackToAggregatedWhenPrefillFindsNoPod(t *testing.T) {
	h := NewProfileHandler("h")
	ctx := context.Background()
	profiles := map[string]*framework.SchedulerProfile{PrefillProfile: framework.NewSchedulerProfile(), DecodeProfile: framework.NewSchedulerProfile()}
	cs := schedtypes.NewCycleState()
	h.Pick(ctx, cs, nil, profiles, map[string]*schedtypes.ProfileRunResult{})
	got := h.Pick(ctx, cs, nil, profiles, map[string]*schedtypes.ProfileRunResult{PrefillProfile: nil})
	assert.Equal(t, []string{DecodeProfile}, keys(got))
	assert.False(t, PrefillEnabled(cs))
}

func TestPickWithoutPrefillProfileIsAggregated(t *testing.T) {
	h := NewProfileHandler("h")
	cs := schedtypes.NewCycleState()
	profiles := map[string]*framework.SchedulerProfile{DecodeProfile: framework.NewSchedulerProfile()}
	assert.Equal(t, []string{DecodeProfile}, keys(h.Pick(context.Background(), cs, nil, profiles, map[string]*schedtypes.ProfileRunResult{})))
	assert.False(t, PrefillEnabled(cs))
}

func TestProcessResultsRefusesWhatHasNoPrimary(t *testing.T) {
	h := NewProfileHandler("h")
	ctx := context.Background()
	_, err := h.ProcessResults(ctx, nil, nil, map[string]*schedtypes.ProfileRunResult{})
	assert.Error(t, err)
	_, err = h.ProcessResults(ctx, nil, nil, map[string]*schedtypes.ProfileRunResult{DecodeProfile: nil, PrefillProfile: {}})
	assert.Error(t, err, "decode found no pod")
	_, err = h.ProcessResults(ctx, nil, nil, map[string]*schedtypes.ProfileRunResult{"a": {}, "b": {}})
	assert.Error(t, err, "no decode profile and no single result: no arbitrary primary")
	res, err := h.ProcessResults(ctx, nil, nil, map[string]*schedtypes.ProfileRunResult{"only": {}})
	require.NoError(t, err)
	assert.Equal(t, "only", res.PrimaryProfileName)
}

// Enforced disaggregation (Dynamo v1.1's DYN_ENFORCE_DISAGG=true): a
// request whose prefill profile finds no pod, or whose prefill routing
// names no worker, is refused rather than routed aggregated.
func TestEnforcedDisaggregationRefusesAggregatedFallback(t *testing.T) {
	h := NewProfileHandler("h")
	h.enforceDisagg = true
	ctx := context.Background()
	profiles := map[string]*framework.SchedulerProfile{PrefillProfile: framework.NewSchedulerProfile(), DecodeProfile: framework.NewSchedulerProfile()}
	cs := schedtypes.NewCycleState()
	h.Pick(ctx, cs, nil, profiles, map[string]*schedtypes.ProfileRunResult{})
	assert.Empty(t, h.Pick(ctx, cs, nil, profiles, map[string]*schedtypes.ProfileRunResult{PrefillProfile: nil}))

	ran := map[string]*schedtypes.ProfileRunResult{PrefillProfile: {TargetPods: pods("p")}, DecodeProfile: {TargetPods: pods("d")}}
	_, err := h.ProcessResults(ctx, cs, chatRequest("r", nil), ran)
	assert.ErrorIs(t, err, ErrDisaggEnforced, "prefill routing named no worker")
	_, err = h.ProcessResults(ctx, cs, chatRequest("r", nil), map[string]*schedtypes.ProfileRunResult{PrefillProfile: nil})
	assert.ErrorIs(t, err, ErrDisaggEnforced)

	res, err := h.ProcessResults(ctx, cs, chatRequest("r", map[string]string{PrefillWorkerIDHeader: "11"}), ran)
	require.NoError(t, err)
	assert.Equal(t, DecodeProfile, res.PrimaryProfileName)
	res, err = h.ProcessResults(ctx, cs, chatRequest("r", nil), map[string]*schedtypes.ProfileRunResult{DecodeProfile: {TargetPods: pods("d")}})
	require.NoError(t, err, "no prefill profile configured: nothing to enforce")
	assert.Equal(t, DecodeProfile, res.PrimaryProfileName)
}

// The handler enforces disaggregation only on a line whose Dynamo does,
// and then from the variable the router's flag is read from.
func TestTheHandlerEnforcesFromTheRoutersVariable(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	assert.False(t, newProfileHandler("h", env(nil)).enforceDisagg)
	on := newProfileHandler("h", env(map[string]string{dynrouter.EnvRoutersFlag: "true"}))
	assert.Equal(t, handlerEnforcesDisagg, on.enforceDisagg)
}
