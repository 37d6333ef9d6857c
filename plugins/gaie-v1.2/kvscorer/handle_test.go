package kvscorer

import (
	"context"

	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
)

type handle struct {
	plugins.HandlePlugins
	ctx context.Context
}

func (h handle) Context() context.Context { return h.ctx }
func (handle) PodList(func(backendmetrics.PodMetrics) bool) []backendmetrics.PodMetrics {
	return nil
}
