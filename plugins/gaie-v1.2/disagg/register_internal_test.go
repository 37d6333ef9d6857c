package disagg

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	backendmetrics "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/backend/metrics"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"

	"github.com/epp-build/epp-build/plugins/gaie-v1.2/dynrouter"
)

type testHandle struct {
	plugins.HandlePlugins
	ctx context.Context
}

func (h testHandle) Context() context.Context { return h.ctx }
func (testHandle) PodList(func(backendmetrics.PodMetrics) bool) []backendmetrics.PodMetrics {
	return nil
}

func TestScorersShareOneRouterOpenedFromTheEnvironment(t *testing.T) {
	f := newFakeRouter()
	var opened []dynrouter.Config
	s := &sharedRouter{
		open: func(c dynrouter.Config) (dynrouter.Router, error) { opened = append(opened, c); return f, nil },
		getenv: func(k string) string {
			return map[string]string{"DYN_NAMESPACE": "graph", dynrouter.EnvRoutersFlag: "true"}[k]
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := s.prefillFactory("pre", nil, testHandle{ctx: ctx})
	require.NoError(t, err)
	assert.Equal(t, plugins.TypedName{Type: PrefillScorerType, Name: "pre"}, p.TypedName())
	d, err := s.decodeFactory("dec", json.RawMessage(`{"unknown":true}`), testHandle{ctx: ctx})
	require.NoError(t, err)
	assert.Equal(t, plugins.TypedName{Type: DecodeScorerType, Name: "dec"}, d.TypedName())
	assert.Equal(t, []dynrouter.Config{{Namespace: "graph", Component: "backend", RoutersFlag: true}}, opened)
	_, err = s.decodeFactory("dec", json.RawMessage(`[`), nil)
	assert.Error(t, err)

	// The router is closed when the handle's context ends.
	cancel()
	<-f.closedCh
	_, err = f.RouteDecode(context.Background(), []byte(`{}`), nil, false)
	assert.ErrorIs(t, err, errClosed)
}

func TestARouterThatCannotOpenStopsTheFactory(t *testing.T) {
	s := &sharedRouter{
		open:   func(dynrouter.Config) (dynrouter.Router, error) { return nil, errors.New("no workers") },
		getenv: func(string) string { return "" },
	}
	_, err := s.decodeFactory("dec", nil, nil)
	assert.ErrorContains(t, err, "no workers")
	_, err = s.prefillFactory("pre", nil, nil)
	assert.ErrorContains(t, err, "no workers")
}

func TestProfileHandlerFactory(t *testing.T) {
	p, err := ProfileHandlerFactory("h", json.RawMessage(`{"x":1}`), nil)
	require.NoError(t, err)
	assert.Equal(t, plugins.TypedName{Type: ProfileHandlerType, Name: "h"}, p.TypedName())
	_, err = ProfileHandlerFactory("h", json.RawMessage(`"s"`), nil)
	assert.Error(t, err)
}

func TestAConfigLoadedAfterTheHandleEndedOpensANewRouter(t *testing.T) {
	var opened []*fakeRouter
	s := &sharedRouter{
		open: func(dynrouter.Config) (dynrouter.Router, error) {
			opened = append(opened, newFakeRouter())
			return opened[len(opened)-1], nil
		},
		getenv: func(string) string { return "" },
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err := s.decodeFactory("dec", nil, testHandle{ctx: ctx})
	require.NoError(t, err)
	cancel()
	<-opened[0].closedCh
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	_, err = s.decodeFactory("dec", nil, testHandle{ctx: ctx2})
	require.NoError(t, err)
	require.Len(t, opened, 2)
	_, err = s.prefillFactory("pre", nil, testHandle{ctx: ctx2})
	require.NoError(t, err)
	assert.Len(t, opened, 2, "one router per handle")
}
