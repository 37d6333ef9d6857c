package kvscorer

import (
	"encoding/json"
	"fmt"
	"os"

	kv07 "github.com/epp-build/epp-build/plugins/dynamo-v0.7/kvscorer"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
)

// NewFactory returns the plugins.FactoryFunc to register under Type. The
// router is opened here, so a bad configuration stops the EPP at start-up,
// and closed when the handle's context ends (GAIE v0.5.1 has no plugin
// shutdown hook).
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
		kv07.LogIgnored(handle, name, cfg.Ignored)
		scorer := New(name, cfg, router)
		kv07.Remember(scorer)
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

// CloseAll closes the router of every scorer this factory opened; the
// list is v0.7's, which this line shares.
func CloseAll() error { return kv07.CloseAll() }
