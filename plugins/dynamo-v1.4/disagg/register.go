package disagg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strconv"
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

// DefaultActiveRequestExpiry is the router's expiry of active requests
// when EnvActiveRequestExpiry is unset or invalid.
const DefaultActiveRequestExpiry = 300 * time.Second

// Register adds the profile handler and both scorers to the EPP's plugin
// registry. Call it from the EPP's main before the runner starts. The
// scorers share one router, opened by the first factory that needs it
// (so a router that cannot be created stops the EPP at start-up, as in
// Dynamo's EPP) and closed when the plugin handle's context ends. The
// router knobs (DYN_ROUTER_*) are read by the router library from the
// process environment, which the EPP leaves as it is.
//
// The EPP's main calls the returned closeRouter after the runner returns:
// the close on the handle's context runs on a goroutine that main does not
// wait for, so without it the process can exit before the router is
// destroyed. closeRouter waits for that close if it has already begun.
func Register(open OpenRouter) (closeRouter func()) {
	shared := &sharedRuntime{open: open, getenv: os.Getenv}
	fwkplugin.Register(ProfileHandlerType, ProfileHandlerFactory)
	fwkplugin.Register(PrefillScorerType, shared.prefillFactory)
	fwkplugin.Register(DecodeScorerType, shared.decodeFactory)
	return shared.close
}

type sharedRuntime struct {
	open   OpenRouter
	getenv func(string) string

	mu        sync.Mutex
	rt        *Runtime
	closeOnce sync.Once
}

// close closes the shared runtime once, if it was opened; a second caller
// waits until the first has finished.
func (s *sharedRuntime) close() {
	s.mu.Lock()
	rt := s.rt
	s.mu.Unlock()
	if rt == nil {
		return
	}
	s.closeOnce.Do(func() {
		if err := rt.Close(); err != nil {
			log.Log.Error(err, "close dynamo kv router")
		}
	})
}

func (s *sharedRuntime) get(handle fwkplugin.Handle) (*Runtime, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rt != nil {
		return s.rt, nil
	}
	logger := log.Log.WithName("dynamo-kv-router")
	cfg := kvrouter.ConfigFromEnv(s.getenv)
	if kvrouter.EnforceDisaggRequested(s.getenv) {
		logger.Info(kvrouter.EnvEnforceDisagg + " is deprecated and ignored; routing topology and readiness come from registered worker types")
	}
	// The router takes block size and model name from discovery; these
	// variables only show up here, as in Dynamo's EPP.
	logger.Info("Dynamo KV router config loaded", "namespace", cfg.Namespace, "component", cfg.Component,
		"kvCacheBlockSize", valueOr(s.getenv(kvrouter.EnvKVCacheBlockSize), "(from discovery)"),
		"modelName", valueOr(s.getenv(kvrouter.EnvModelName), "(from discovery)"))
	expiry, warning := routerRequestExpiry(s.getenv)
	if warning != "" {
		logger.Info(warning)
	}
	router, err := s.open(cfg)
	if err != nil {
		return nil, err
	}
	s.rt = NewRuntime(router, booking.Options{
		Logger:    log.Log.WithName("dynamo-booking"),
		Retention: booking.RetentionFor(expiry),
	})
	if handle != nil && handle.Context() != nil {
		ctx := handle.Context()
		go func() {
			<-ctx.Done()
			s.close()
		}()
	}
	return s.rt, nil
}

func valueOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// routerRequestExpiry is the expiry the router library applies: it reads
// EnvActiveRequestExpiry itself and falls back to its default, with a
// warning, on a value that is not a positive whole number of seconds. The
// EPP reads it the same way, so its bookings outlive the router's
// requests and a value the router accepts never stops the EPP.
func routerRequestExpiry(getenv func(string) string) (time.Duration, string) {
	v := getenv(EnvActiveRequestExpiry)
	if v == "" {
		return DefaultActiveRequestExpiry, ""
	}
	secs, err := strconv.ParseUint(v, 10, 64)
	if err != nil || secs == 0 {
		return DefaultActiveRequestExpiry, fmt.Sprintf("%s=%q is not a positive number of seconds: the router uses its default of %s, and so does the EPP",
			EnvActiveRequestExpiry, v, DefaultActiveRequestExpiry)
	}
	const longest = uint64(math.MaxInt64 / int64(time.Second))
	return time.Duration(min(secs, longest)) * time.Second, ""
}

// decodeParams reads a plugin's parameters as Dynamo's EPP does: keys it
// does not know are ignored (a config written for Dynamo's own EPP still
// loads), but named in the log so a misspelt key does not go unseen.
func decodeParams(typ, name string, raw json.RawMessage, into any) error {
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%s %q: parameters: %w", typ, name, err)
	}
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(reflect.New(reflect.TypeOf(into).Elem()).Interface()); err != nil {
		log.Log.Info("plugin parameter ignored", "type", typ, "plugin", name, "reason", err.Error())
	}
	return nil
}

func (s *sharedRuntime) prefillFactory(name string, raw json.RawMessage, handle fwkplugin.Handle) (fwkplugin.Plugin, error) {
	var p PrefillParams
	if err := decodeParams(PrefillScorerType, name, raw, &p); err != nil {
		return nil, err
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
	if err := decodeParams(DecodeScorerType, name, raw, &p); err != nil {
		return nil, err
	}
	rt, err := s.get(handle)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", DecodeScorerType, name, err)
	}
	return NewDecodeScorer(name, rt, p), nil
}
