package kvscorer

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/framework"
)

// testHandle is a minimal plugins.Handle (GAIE v0.5.1 keeps its own
// implementation unexported in cmd/epp/runner).
type testHandle struct{ ctx context.Context }

func (h testHandle) Context() context.Context                          { return h.ctx }
func (h testHandle) Plugin(string) plugins.Plugin                      { return nil }
func (h testHandle) AddPlugin(string, plugins.Plugin)                  {}
func (h testHandle) GetAllPlugins() []plugins.Plugin                   { return nil }
func (h testHandle) GetAllPluginsWithNames() map[string]plugins.Plugin { return nil }

func TestFactoryThroughRegistry(t *testing.T) {
	t.Setenv(EnvKVBlockSize, "")
	router := &fakeRouter{workers: testWorkers}
	var opened []Config
	plugins.Register(Type, NewFactory(func(cfg Config) (Router, error) {
		opened = append(opened, cfg)
		return router, nil
	}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	plugin, err := plugins.Registry[Type]("dyn-kv", json.RawMessage(`{"kvBlockSize":128,"model":"m"}`), testHandle{ctx})
	require.NoError(t, err)
	scorer, ok := plugin.(framework.Scorer)
	require.True(t, ok, "%T must be a Scorer", plugin)
	assert.Equal(t, plugins.TypedName{Type: Type, Name: "dyn-kv"}, scorer.TypedName())
	require.Len(t, opened, 1)
	assert.Equal(t, uint32(128), opened[0].KVBlockSize)
	assert.Equal(t, "m", opened[0].Model)

	cancel() // the EPP shutting down
	require.Eventually(t, func() bool { _, closed, _ := router.snapshot(); return closed == 1 },
		10*time.Second, 5*time.Millisecond, "the router is closed when the handle's context ends")
}

func TestFactoryErrors(t *testing.T) {
	t.Setenv(EnvKVBlockSize, "")
	opens := 0
	factory := NewFactory(func(Config) (Router, error) { opens++; return nil, errors.New("dynamo_llm_init: code 1") })

	var err error
	require.NotPanics(t, func() { _, err = factory("kv", json.RawMessage(`{}`), nil) })
	assert.ErrorContains(t, err, "kvBlockSize is required")
	assert.Zero(t, opens, "a bad config never opens the router")

	_, err = factory("kv", json.RawMessage(`{"kvBlockSize":64,"namespace":"ns"}`), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `open Dynamo router (namespace "ns"`)
	assert.Contains(t, err.Error(), "dynamo_llm_init: code 1")
	assert.Equal(t, 1, opens)

	_, err = NewFactory(nil)("kv", json.RawMessage(`{"kvBlockSize":64}`), nil)
	assert.ErrorContains(t, err, "no router opener")
}

// The EPP's main closes every router the factory opened before it
// returns, whether or not the context's goroutine got there first, and
// each router once.
func TestCloseAllClosesEveryOpenedRouterOnce(t *testing.T) {
	t.Setenv(EnvKVBlockSize, "")
	routers := []*fakeRouter{{workers: testWorkers}, {workers: testWorkers}}
	next := 0
	factory := NewFactory(func(Config) (Router, error) { r := routers[next]; next++; return r, nil })
	for _, name := range []string{"a", "b"} {
		_, err := factory(name, json.RawMessage(`{"kvBlockSize":16}`), testHandle{context.Background()})
		require.NoError(t, err)
	}
	require.NoError(t, CloseAll())
	require.NoError(t, CloseAll(), "a second CloseAll has nothing left to close")
	for i, r := range routers {
		_, closed, _ := r.snapshot()
		assert.Equal(t, 1, closed, "router %d", i)
	}
}
