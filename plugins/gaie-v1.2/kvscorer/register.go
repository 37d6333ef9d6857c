package kvscorer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
)

// Register adds kv-aware-scorer to the EPP's plugin registry; call it from
// the EPP's main before the runner starts. Scorers share one pipeline,
// opened from the environment by the first factory (so a pipeline that
// cannot be created, or a missing DYNAMO_KV_BLOCK_SIZE, stops the EPP at
// start-up, as in Dynamo's EPP) and closed when the plugin handle's
// context ends.
func Register(open Open) {
	s := &shared{open: open, getenv: os.Getenv}
	plugins.Register(Type, s.factory)
}

type shared struct {
	open   Open
	getenv func(string) string

	mu     sync.Mutex
	router Router
	model  string
	ctx    context.Context // the handle context router lives for; nil for ever
}

func (s *shared) get(ctx context.Context) (Router, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.router != nil && (s.ctx == nil || s.ctx.Err() == nil) {
		return s.router, s.model, nil
	}
	logger := log.Log.WithName("dynamo-kv-router")
	cfg, warnings, err := ConfigFromEnv(s.getenv)
	for _, w := range warnings {
		logger.Info(w)
	}
	if err != nil {
		return nil, "", fmt.Errorf("dynamo configuration: %w", err)
	}
	logger.Info("Dynamo worker selection pipeline config", "namespace", cfg.Namespace, "component", cfg.Component,
		"model", cfg.Model, "kvBlockSize", cfg.KVBlockSize, "enforceDisagg", cfg.EnforceDisagg)
	router, err := s.open(cfg)
	if err != nil {
		return nil, "", err
	}
	s.router, s.model, s.ctx = router, cfg.Model, ctx
	if ctx != nil {
		go func() {
			<-ctx.Done()
			if err := router.Close(); err != nil {
				logger.Error(err, "close dynamo worker selection pipeline")
			}
		}()
	}
	return router, cfg.Model, nil
}

// factory takes no parameters; a value that is not a JSON object is
// refused (Dynamo's factory ignores even that), unknown keys are ignored.
func (s *shared) factory(name string, raw json.RawMessage, handle plugins.Handle) (plugins.Plugin, error) {
	if len(raw) > 0 {
		var params map[string]any
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, fmt.Errorf("%s %q: parameters: %w", Type, name, err)
		}
	}
	var ctx context.Context
	if handle != nil {
		ctx = handle.Context()
	}
	router, model, err := s.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", Type, name, err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return New(ctx, name, router, model), nil
}
