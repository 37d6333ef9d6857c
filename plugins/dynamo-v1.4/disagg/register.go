package disagg

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/log"

	fwkplugin "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/plugin"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/booking"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
)

// OpenRouter opens the KV router (routerffi.Open in the EPP).
type OpenRouter func(kvrouter.Config) (kvrouter.Router, error)

// EnvActiveRequestExpiry is the router's expiry of active requests, in
// seconds; the booking retention is derived from it (booking.RetentionFor).
const EnvActiveRequestExpiry = "DYN_ROUTER_ACTIVE_REQUEST_EXPIRY_SECS"

// Register adds the profile handler and both scorers to the EPP's plugin
// registry. Call it from the EPP's main before the runner starts. The
// scorers share one router, opened by the first factory that needs it
// (so a bad DYN_NAMESPACE stops the EPP at start-up) and closed when the
// plugin handle's context ends.
func Register(open OpenRouter) {
	shared := &sharedRuntime{open: open, getenv: os.Getenv}
	fwkplugin.Register(ProfileHandlerType, ProfileHandlerFactory)
	fwkplugin.Register(PrefillScorerType, shared.prefillFactory)
	fwkplugin.Register(DecodeScorerType, shared.decodeFactory)
}

type sharedRuntime struct {
	open   OpenRouter
	getenv func(string) string

	mu sync.Mutex
	rt *Runtime
}

func (s *sharedRuntime) get(handle fwkplugin.Handle) (*Runtime, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rt != nil {
		return s.rt, nil
	}
	cfg, err := kvrouter.ConfigFromEnv(s.getenv)
	if err != nil {
		return nil, err
	}
	opt, err := bookingOptions(s.getenv)
	if err != nil {
		return nil, err
	}
	router, err := s.open(cfg)
	if err != nil {
		return nil, err
	}
	s.rt = NewRuntime(router, opt)
	if handle != nil && handle.Context() != nil {
		rt, ctx := s.rt, handle.Context()
		go func() {
			<-ctx.Done()
			if err := rt.Close(); err != nil {
				log.Log.Error(err, "close dynamo kv router")
			}
		}()
	}
	return s.rt, nil
}

func bookingOptions(getenv func(string) string) (booking.Options, error) {
	opt := booking.Options{Logger: log.Log.WithName("dynamo-booking")}
	if v := strings.TrimSpace(getenv(EnvActiveRequestExpiry)); v != "" {
		secs, err := strconv.Atoi(v)
		if err != nil || secs <= 0 {
			return booking.Options{}, fmt.Errorf("%s=%q: want a positive number of seconds", EnvActiveRequestExpiry, v)
		}
		opt.Retention = booking.RetentionFor(time.Duration(secs) * time.Second)
	}
	return opt, nil
}

func decodeParams(name string, raw json.RawMessage, into any) error {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("plugin %q: parameters: %w", name, err)
	}
	return nil
}

func (s *sharedRuntime) prefillFactory(name string, raw json.RawMessage, handle fwkplugin.Handle) (fwkplugin.Plugin, error) {
	var p PrefillParams
	if err := decodeParams(name, raw, &p); err != nil {
		return nil, fmt.Errorf("%s: %w (known: maxConcurrentReservations, admissionTimeoutMilliseconds, reservationTimeoutSeconds, workerIDLabel)", PrefillScorerType, err)
	}
	if p.MaxConcurrentReservations < 0 || p.AdmissionTimeoutMilliseconds < 0 || p.ReservationTimeoutSeconds < 0 {
		return nil, fmt.Errorf("%s %q: maxConcurrentReservations, admissionTimeoutMilliseconds and reservationTimeoutSeconds must not be negative (0 means the default)", PrefillScorerType, name)
	}
	rt, err := s.get(handle)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", PrefillScorerType, name, err)
	}
	return NewPrefillScorer(name, rt, HooksFor(rt.Router), p)
}

func (s *sharedRuntime) decodeFactory(name string, raw json.RawMessage, handle fwkplugin.Handle) (fwkplugin.Plugin, error) {
	var p DecodeParams
	if err := decodeParams(name, raw, &p); err != nil {
		return nil, fmt.Errorf("%s: %w (known: workerIDLabel)", DecodeScorerType, err)
	}
	rt, err := s.get(handle)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", DecodeScorerType, name, err)
	}
	return NewDecodeScorer(name, rt, p), nil
}
