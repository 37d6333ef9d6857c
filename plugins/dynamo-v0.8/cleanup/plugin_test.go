package cleanup

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

type freer struct {
	name  string
	freed []string
	err   error
}

func (f *freer) TypedName() plugins.TypedName { return plugins.TypedName{Type: "freer", Name: f.name} }
func (f *freer) FreeRequest(id string) error  { f.freed = append(f.freed, id); return f.err }

type other struct{}

func (other) TypedName() plugins.TypedName { return plugins.TypedName{Type: "other", Name: "o"} }

type handle struct{ all []plugins.Plugin }

func (h handle) Context() context.Context                          { return context.Background() }
func (h handle) Plugin(string) plugins.Plugin                      { return nil }
func (h handle) AddPlugin(string, plugins.Plugin)                  {}
func (h handle) GetAllPlugins() []plugins.Plugin                   { return h.all }
func (h handle) GetAllPluginsWithNames() map[string]plugins.Plugin { return nil }

func TestPostResponseFreesInEveryScorer(t *testing.T) {
	a, b := &freer{name: "a"}, &freer{name: "b", err: errors.New("closed")}
	p, err := Factory("dyn-cleanup", nil, handle{all: []plugins.Plugin{a, other{}, b}})
	require.NoError(t, err)
	p.(*Plugin).PostResponse(context.Background(), &types.LLMRequest{RequestId: "r1"}, nil, nil)
	assert.Equal(t, []string{"r1"}, a.freed)
	assert.Equal(t, []string{"r1"}, b.freed, "one router failing does not stop the others")

	p.(*Plugin).PostResponse(context.Background(), &types.LLMRequest{}, nil, nil)
	p.(*Plugin).PostResponse(context.Background(), nil, nil, nil)
	assert.Equal(t, []string{"r1"}, a.freed, "no request id, nothing to free")
}

func TestFactoryNeedsAHandle(t *testing.T) {
	_, err := Factory("dyn-cleanup", nil, nil)
	assert.Error(t, err)
}
