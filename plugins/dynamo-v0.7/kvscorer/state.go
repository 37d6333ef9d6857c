package kvscorer

import (
	"slices"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

// DecisionKey is where Score records the router's decision in the cycle
// state, for plugins that run later in the same scheduling cycle.
const DecisionKey = types.StateKey("dynamo-kv-aware-scorer/decision")

// Decision is the router's choice for one request.
type Decision struct {
	WorkerID int64
	TokenIDs []uint32
}

// Clone implements types.StateData; the token slice is copied so a clone
// never shares memory with the original.
func (d *Decision) Clone() types.StateData {
	if d == nil {
		return nil
	}
	return &Decision{WorkerID: d.WorkerID, TokenIDs: slices.Clone(d.TokenIDs)}
}

// DecisionFrom returns the decision Score recorded in cycle, if any.
func DecisionFrom(cycle *types.CycleState) (*Decision, bool) {
	if cycle == nil {
		return nil, false
	}
	d, err := types.ReadCycleStateKey[*Decision](cycle, DecisionKey)
	return d, err == nil && d != nil
}
