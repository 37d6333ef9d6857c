package disagg

import (
	"context"
	"encoding/json"
	"fmt"

	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"
)

// ProfileHandlerType is the registry key of the profile handler.
const ProfileHandlerType = "disagg-profile-handler"

// ProfileHandlerParams names the two scheduling profiles.
type ProfileHandlerParams struct {
	PrefillProfile string `json:"prefillProfile"`
	DecodeProfile  string `json:"decodeProfile"`
}

// ProfileHandler runs the prefill profile first, when the config has one,
// then the decode profile, which is always the primary result.
type ProfileHandler struct {
	name    fwkplugin.TypedName
	prefill string
	decode  string
}

var _ fwksched.ProfileHandler = (*ProfileHandler)(nil)

// NewProfileHandler uses the profiles "prefill" and "decode" unless params
// name others.
func NewProfileHandler(name string, params ProfileHandlerParams) *ProfileHandler {
	if params.PrefillProfile == "" {
		params.PrefillProfile = "prefill"
	}
	if params.DecodeProfile == "" {
		params.DecodeProfile = "decode"
	}
	if name == "" {
		name = ProfileHandlerType
	}
	return &ProfileHandler{
		name:    fwkplugin.TypedName{Type: ProfileHandlerType, Name: name},
		prefill: params.PrefillProfile,
		decode:  params.DecodeProfile,
	}
}

// ProfileHandlerFactory is the registry factory of ProfileHandlerType.
func ProfileHandlerFactory(name string, raw json.RawMessage, _ fwkplugin.Handle) (fwkplugin.Plugin, error) {
	var p ProfileHandlerParams
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("%s %q: parameters: %w (want {\"prefillProfile\":..,\"decodeProfile\":..})", ProfileHandlerType, name, err)
		}
	}
	if p.PrefillProfile != "" && p.PrefillProfile == p.DecodeProfile {
		return nil, fmt.Errorf("%s %q: prefillProfile and decodeProfile are both %q: they must differ", ProfileHandlerType, name, p.PrefillProfile)
	}
	return NewProfileHandler(name, p), nil
}

func (h *ProfileHandler) TypedName() fwkplugin.TypedName { return h.name }

// Pick is called until it returns no profile: first pass prefill (or
// decode when there is no prefill profile), second pass decode.
func (h *ProfileHandler) Pick(_ context.Context, cs *fwksched.CycleState, _ *fwksched.InferenceRequest,
	profiles map[string]fwksched.SchedulerProfile, results map[string]*fwksched.ProfileRunResult) map[string]fwksched.SchedulerProfile {
	if _, done := results[h.decode]; done {
		return nil
	}
	decode, ok := profiles[h.decode]
	if !ok {
		return nil // ProcessResults reports the missing profile
	}
	if res, ran := results[h.prefill]; ran {
		if res == nil || len(res.TargetEndpoints) == 0 {
			setPrefillEnabled(cs, false) // nothing to prefill on: aggregated
		}
		return map[string]fwksched.SchedulerProfile{h.decode: decode}
	}
	prefill, hasPrefill := profiles[h.prefill]
	setPrefillEnabled(cs, hasPrefill)
	if hasPrefill {
		return map[string]fwksched.SchedulerProfile{h.prefill: prefill}
	}
	return map[string]fwksched.SchedulerProfile{h.decode: decode}
}

// ProcessResults makes decode the primary profile; the prefill result is
// kept only when the request is still disaggregated.
func (h *ProfileHandler) ProcessResults(_ context.Context, cs *fwksched.CycleState, req *fwksched.InferenceRequest,
	results map[string]*fwksched.ProfileRunResult) (*fwksched.SchedulingResult, error) {
	decode := results[h.decode]
	if decode == nil || len(decode.TargetEndpoints) == 0 {
		id := ""
		if req != nil {
			id = req.RequestId
		}
		return nil, fmt.Errorf("%s: decode profile %q picked no endpoint for request %s (is the profile in schedulingProfiles, with a picker?)", h.name, h.decode, id)
	}
	out := map[string]*fwksched.ProfileRunResult{h.decode: decode}
	if prefill := results[h.prefill]; prefill != nil && prefillEnabled(cs) {
		out[h.prefill] = prefill
	}
	return &fwksched.SchedulingResult{ProfileResults: out, PrimaryProfileName: h.decode}, nil
}
