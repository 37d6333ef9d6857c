package disagg

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

// Register adds the profile handler and both scorers to the EPP's plugin
// registry; call it from the EPP's main before the runner starts. The
// scorers share one router, opened by the first factory that needs it (so
// a router that cannot be created stops the EPP at start-up, as in
// Dynamo's EPP) and closed when the plugin handle's context ends; a
// config loaded after that opens a new one.
func Register(open dynrouter.Open) {
	shared := &sharedRouter{open: open, getenv: os.Getenv}
	plugins.Register(ProfileHandlerType, ProfileHandlerFactory)
	plugins.Register(PrefillScorerType, shared.prefillFactory)
	plugins.Register(DecodeScorerType, shared.decodeFactory)
}

type sharedRouter struct {
	open   dynrouter.Open
	getenv func(string) string

	mu     sync.Mutex
	router dynrouter.Router
	ctx    context.Context // the handle context router lives for; nil for ever
}

func (s *sharedRouter) get(handle plugins.Handle) (dynrouter.Router, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.router != nil && (s.ctx == nil || s.ctx.Err() == nil) {
		return s.router, nil
	}
	logger := log.Log.WithName("dynamo-kv-router")
	cfg, warning := dynrouter.ConfigFromEnv(s.getenv)
	if warning != "" {
		logger.Info(warning)
	}
	// Model name and KV block size come from discovery in Dynamo v1.0's
	// router; nothing else configures it from here.
	logger.Info("Dynamo KV router config", "namespace", cfg.Namespace, "component", cfg.Component, dynrouter.EnvRoutersFlag, cfg.RoutersFlag)
	router, err := s.open(cfg)
	if err != nil {
		return nil, err
	}
	s.router, s.ctx = router, handleContext(handle)
	if ctx := s.ctx; ctx != nil {
		go func() {
			<-ctx.Done()
			if err := router.Close(); err != nil {
				logger.Error(err, "close dynamo kv router")
			}
		}()
	}
	return router, nil
}

func handleContext(handle plugins.Handle) context.Context {
	if handle == nil {
		return nil
	}
	return handle.Context()
}

// decodeParams reads a plugin's parameters as Dynamo's EPP does: keys it
// does not know are ignored (its scorers and handler take none), but named
// in the log so a misspelt key does not go unseen.
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

func (s *sharedRouter) prefillFactory(name string, raw json.RawMessage, handle plugins.Handle) (plugins.Plugin, error) {
	if err := decodeParams(PrefillScorerType, name, raw, &struct{}{}); err != nil {
		return nil, err
	}
	router, err := s.get(handle)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", PrefillScorerType, name, err)
	}
	return NewPrefillScorer(name, router), nil
}

func (s *sharedRouter) decodeFactory(name string, raw json.RawMessage, handle plugins.Handle) (plugins.Plugin, error) {
	if err := decodeParams(DecodeScorerType, name, raw, &struct{}{}); err != nil {
		return nil, err
	}
	router, err := s.get(handle)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", DecodeScorerType, name, err)
	}
	ctx := handleContext(handle)
	if ctx == nil {
		ctx = context.Background()
	}
	return NewDecodeScorer(ctx, name, router), nil
}
