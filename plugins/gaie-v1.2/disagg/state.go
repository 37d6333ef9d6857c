package disagg

import (
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

// Profile names the profile handler runs, Dynamo's.
const (
	PrefillProfile = "prefill"
	DecodeProfile  = "decode"
)

// PrefillEnabledKey is the cycle state key through which the profile
// handler tells the scorers whether this request is disaggregated.
const PrefillEnabledKey = plugins.StateKey("disagg-prefill-enabled")

type prefillEnabled struct{ on bool }

func (s *prefillEnabled) Clone() plugins.StateData { return &prefillEnabled{on: s.on} }

// SetPrefillEnabled records whether the request is disaggregated.
func SetPrefillEnabled(cs *schedtypes.CycleState, on bool) {
	cs.Write(PrefillEnabledKey, &prefillEnabled{on: on})
}

// PrefillEnabled says whether the request is disaggregated: false when
// nothing was written (no profile handler of ours, or no cycle state).
func PrefillEnabled(cs *schedtypes.CycleState) bool {
	if cs == nil {
		return false
	}
	s, err := schedtypes.ReadCycleStateKey[*prefillEnabled](cs, PrefillEnabledKey)
	return err == nil && s != nil && s.on
}

func uniform(pods []schedtypes.Pod, score float64) map[schedtypes.Pod]float64 {
	out := make(map[schedtypes.Pod]float64, len(pods))
	for _, p := range pods {
		out[p] = score
	}
	return out
}
