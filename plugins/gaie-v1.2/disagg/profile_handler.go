package disagg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
	schedtypes "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
	logutil "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/util/logging"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

// ProfileHandlerType is the registry key, Dynamo's.
const ProfileHandlerType = "disagg-profile-handler"

// ProfileHandler runs the "prefill" profile (when the config has one),
// then "decode", and makes decode the primary result. Whether a prefill
// profile is configured decides disaggregation per request; a prefill
// profile that finds no pod (no prefill worker up) turns the request back
// into an aggregated one before decode runs, as in Dynamo's EPP. Where the
// line enforces disaggregation (handlerEnforcesDisagg) and the environment
// asks for it, such a request is refused instead.
type ProfileHandler struct {
	name          plugins.TypedName
	enforceDisagg bool
}

var _ framework.ProfileHandler = (*ProfileHandler)(nil)

// NewProfileHandler names a profile handler.
func NewProfileHandler(name string) *ProfileHandler {
	return &ProfileHandler{name: plugins.TypedName{Type: ProfileHandlerType, Name: name}}
}

// ProfileHandlerFactory takes no parameters; a JSON value that is not an
// object is refused, unknown keys are ignored (as in Dynamo's EPP).
func ProfileHandlerFactory(name string, raw json.RawMessage, _ plugins.Handle) (plugins.Plugin, error) {
	if err := decodeParams(ProfileHandlerType, name, raw, &struct{}{}); err != nil {
		return nil, err
	}
	return newProfileHandler(name, os.Getenv), nil
}

// newProfileHandler reads whether disaggregation is enforced from the
// variable the router's create_routers flag comes from, so the handler and
// the router never disagree (Dynamo v1.1 reads DYN_ENFORCE_DISAGG in both).
func newProfileHandler(name string, getenv func(string) string) *ProfileHandler {
	h := NewProfileHandler(name)
	if handlerEnforcesDisagg {
		cfg, _ := dynrouter.ConfigFromEnv(getenv)
		h.enforceDisagg = cfg.RoutersFlag
	}
	return h
}

func (h *ProfileHandler) TypedName() plugins.TypedName { return h.name }

// Pick returns prefill first (when configured), then decode, then nothing.
func (h *ProfileHandler) Pick(ctx context.Context, cs *schedtypes.CycleState, _ *schedtypes.LLMRequest,
	profiles map[string]*framework.SchedulerProfile, results map[string]*schedtypes.ProfileRunResult) map[string]*framework.SchedulerProfile {
	logger := log.FromContext(ctx).V(logutil.VERBOSE)
	if len(results) == 0 {
		prefill, ok := profiles[PrefillProfile]
		SetPrefillEnabled(cs, ok)
		logger.Info("disagg profile handler: first pass", "prefillEnabled", ok)
		if ok {
			return map[string]*framework.SchedulerProfile{PrefillProfile: prefill}
		}
		if decode, ok := profiles[DecodeProfile]; ok {
			return map[string]*framework.SchedulerProfile{DecodeProfile: decode}
		}
		// Neither profile name is configured: run what there is, once.
		return profiles
	}
	prefillResult, prefillRan := results[PrefillProfile]
	_, decodeRan := results[DecodeProfile]
	if prefillRan && !decodeRan {
		if prefillResult == nil && h.enforceDisagg {
			logger.Info("disagg profile handler: prefill profile found no pod and disaggregation is enforced, refusing the request")
			return map[string]*framework.SchedulerProfile{}
		}
		if prefillResult == nil {
			logger.Info("disagg profile handler: prefill profile found no pod, routing decode aggregated")
			SetPrefillEnabled(cs, false)
		}
		if decode, ok := profiles[DecodeProfile]; ok {
			return map[string]*framework.SchedulerProfile{DecodeProfile: decode}
		}
	}
	return map[string]*framework.SchedulerProfile{}
}

// ErrDisaggEnforced refuses a request that disaggregation is enforced for
// but no prefill worker was routed for.
var ErrDisaggEnforced = errors.New("disagg profile handler: disaggregation is enforced but no prefill worker was routed")

// ProcessResults makes decode the primary profile, or the one profile
// that ran when decode did not. Where disaggregation is enforced, a
// request whose prefill profile ran without naming a prefill worker is
// refused.
func (h *ProfileHandler) ProcessResults(_ context.Context, _ *schedtypes.CycleState, req *schedtypes.LLMRequest,
	results map[string]*schedtypes.ProfileRunResult) (*schedtypes.SchedulingResult, error) {
	if _, prefillRan := results[PrefillProfile]; prefillRan && h.enforceDisagg && (req == nil || req.Headers[PrefillWorkerIDHeader] == "") {
		return nil, ErrDisaggEnforced
	}
	if len(results) == 0 {
		return nil, errors.New("disagg profile handler: no profile ran")
	}
	primary := DecodeProfile
	if _, ok := results[DecodeProfile]; !ok {
		if len(results) > 1 {
			return nil, fmt.Errorf("disagg profile handler: no %q profile among %d results", DecodeProfile, len(results))
		}
		for name := range results {
			primary = name
		}
	}
	if results[primary] == nil {
		return nil, fmt.Errorf("disagg profile handler: primary profile %q found no pod", primary)
	}
	return &schedtypes.SchedulingResult{ProfileResults: results, PrimaryProfileName: primary}, nil
}
