package disagg

import (
	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// Cycle state keys shared by the profile handler and the scorers.
const (
	PrefillEnabledKey fwkplugin.StateKey = "dynamo-disagg-prefill-enabled"
	BookingKey        fwkplugin.StateKey = "dynamo-epp-booking"
	DecodeRoutingKey  fwkplugin.StateKey = "dynamo-decode-routing"
)

// PrefillEnabled says whether this request is served disaggregated: the
// profile handler sets it when a prefill profile exists; a failed
// reservation or an empty prefill result clears it.
type PrefillEnabled struct{ Enabled bool }

func (p *PrefillEnabled) Clone() fwkplugin.StateData { c := *p; return &c }

// BookingState is the booking the prefill scorer reserved.
type BookingState struct {
	ID              string
	PrefillReserved bool
	// PrefillAdvisory: the prefill worker was picked without a reservation
	// (the C API has none), as Dynamo's release EPP does.
	PrefillAdvisory bool
	Prefill         kvrouter.Decision
}

func (b *BookingState) Clone() fwkplugin.StateData { c := *b; return &c }

// DecodeRouting is the decode decision registered with the router.
type DecodeRouting struct {
	BookingID string
	Mode      string
	Decision  kvrouter.Decision
}

func (d *DecodeRouting) Clone() fwkplugin.StateData { c := *d; return &c }

func prefillEnabled(cs *fwksched.CycleState) bool {
	st, err := fwksched.ReadCycleStateKey[*PrefillEnabled](cs, PrefillEnabledKey)
	return err == nil && st.Enabled
}

// prefillDisabled says the profile handler decided this request is not
// disaggregated. Without a decision (a config with another profile
// handler) the prefill scorer still reserves.
func prefillDisabled(cs *fwksched.CycleState) bool {
	st, err := fwksched.ReadCycleStateKey[*PrefillEnabled](cs, PrefillEnabledKey)
	return err == nil && !st.Enabled
}

func setPrefillEnabled(cs *fwksched.CycleState, enabled bool) {
	cs.Write(PrefillEnabledKey, &PrefillEnabled{Enabled: enabled})
}

func bookingState(cs *fwksched.CycleState) *BookingState {
	st, err := fwksched.ReadCycleStateKey[*BookingState](cs, BookingKey)
	if err != nil {
		return nil
	}
	return st
}
