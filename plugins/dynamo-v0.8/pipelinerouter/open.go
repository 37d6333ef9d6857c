// Package pipelinerouter connects Dynamo v0.8.0's kv-aware-scorer to the
// cgo binding of Dynamo v0.8.0's pipeline C API. It is the only package of
// these plugins that needs cgo and the static library.
package pipelinerouter

import (
	"context"

	"github.com/epp-build/epp-build/ffi/pipeline08"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/kvscorer"
)

// Open is a kvscorer.Opener backed by pipeline08.Open.
func Open(cfg kvscorer.Config) (kvscorer.Router, error) {
	r, err := pipeline08.Open(pipeline08.Config{
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
		EnforceDisagg:      cfg.EnforceDisagg,
	})
	if err != nil {
		return nil, err
	}
	return router{r}, nil
}

type router struct{ *pipeline08.Router }

func (a router) Select(ctx context.Context, requestJSON []byte) (kvscorer.Selection, error) {
	s, err := a.Router.Select(ctx, requestJSON)
	if err != nil {
		return kvscorer.Selection{}, err
	}
	return kvscorer.Selection{DecodeWorkerID: s.DecodeWorkerID, PrefillWorkerID: s.PrefillWorkerID, TokenIDs: s.TokenIDs}, nil
}
