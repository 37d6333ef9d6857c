package kvscorer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"sigs.k8s.io/controller-runtime/pkg/log"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
)

// NewFactory returns the plugins.FactoryFunc to register under Type; the EPP
// main passes the cgo opener (pipelinerouter.Open), tests pass fakes.
//
// The router is opened in the factory, not on the first request: a wrong
// namespace, model or block size then stops the EPP at start-up with the
// config error instead of degrading every request. The router is closed
// when the handle's context ends (the EPP's shutdown signal), because GAIE
// v0.5.1 has no plugin shutdown hook.
func NewFactory(open Opener) plugins.FactoryFunc {
	return func(name string, parameters json.RawMessage, handle plugins.Handle) (plugins.Plugin, error) {
		cfg, err := LoadConfig(parameters, os.LookupEnv)
		if err != nil {
			return nil, err
		}
		if open == nil {
			return nil, fmt.Errorf("%s %q: no router opener configured", Type, name)
		}
		router, err := open(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s %q: open Dynamo router (namespace %q, component %q, model %q): %w",
				Type, name, cfg.Namespace, cfg.Component, cfg.Model, err)
		}
		LogIgnored(handle, name, cfg.Ignored)
		scorer := New(name, cfg, router)
		Remember(scorer)
		if handle != nil && handle.Context() != nil && handle.Context().Done() != nil {
			done := handle.Context().Done()
			go func() {
				<-done
				_ = scorer.Close()
			}()
		}
		return scorer, nil
	}
}

// LogIgnored logs, once per plugin at start-up, the settings that have no
// effect (Config.Ignored).
func LogIgnored(handle plugins.Handle, name string, ignored []string) {
	ctx := context.Background()
	if handle != nil && handle.Context() != nil {
		ctx = handle.Context()
	}
	for _, notice := range ignored {
		log.FromContext(ctx).Info("Dynamo setting has no effect", "plugin", name, "notice", notice)
	}
}
