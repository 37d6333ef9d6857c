package disagg_test

import (
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/disagg"
)

func readBooking(cs *fwksched.CycleState) (*disagg.BookingState, error) {
	return fwksched.ReadCycleStateKey[*disagg.BookingState](cs, disagg.BookingKey)
}
