// Package pipelinerouter connects the kv-aware scorer to Dynamo's Rust C API
// through the cgo binding of its "pipeline" generation. It is the only
// package of the plugins that needs cgo and the static library, so the
// scorer itself builds and tests without them.
package pipelinerouter

import (
	"context"

	"github.com/epp-build/epp-build/ffi/pipeline"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/kvscorer"
)

// Open is a kvscorer.Opener backed by pipeline.Open.
func Open(cfg kvscorer.Config) (kvscorer.Router, error) {
	r, err := pipeline.Open(pipeline.Config{
		Namespace:          cfg.Namespace,
		Component:          cfg.Component,
		Model:              cfg.Model,
		KVBlockSize:        cfg.KVBlockSize,
		UseKVRouting:       cfg.UseKVRouting,
		BusyThreshold:      cfg.BusyThreshold,
		OverlapScoreWeight: cfg.OverlapScoreWeight,
		RouterTemperature:  cfg.RouterTemperature,
		UseKVEvents:        cfg.UseKVEvents,
		RouterReplicaSync:  cfg.RouterReplicaSync,
	})
	if err != nil {
		return nil, err
	}
	return router{r}, nil
}

type router struct{ r *pipeline.Router }

func (a router) Select(ctx context.Context, requestJSON []byte) (kvscorer.Selection, error) {
	s, err := a.r.Select(ctx, requestJSON)
	if err != nil {
		return kvscorer.Selection{}, err
	}
	return kvscorer.Selection{WorkerID: s.WorkerID, TokenIDs: s.TokenIDs, AnnotatedRequest: s.AnnotatedRequest}, nil
}

func (a router) Close() error { return a.r.Close() }
