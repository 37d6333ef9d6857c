package workerid

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.7/bbrhints"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/requestcontrol"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

// fromRegistry builds the plugin the way the EPP's config loader does:
// through the global registry, by type.
func fromRegistry(t *testing.T, name string, params string) requestcontrol.PreRequest {
	t.Helper()
	plugins.Register(Type, Factory)
	factory, ok := plugins.Registry[Type]
	require.True(t, ok)
	plugin, err := factory(name, json.RawMessage(params), nil)
	require.NoError(t, err)
	pre, ok := plugin.(requestcontrol.PreRequest)
	require.True(t, ok, "%T must be a PreRequest plugin", plugin)
	return pre
}

func TestFactory(t *testing.T) {
	pre := fromRegistry(t, "dyn-pre", "{}")
	assert.Equal(t, plugins.TypedName{Type: Type, Name: "dyn-pre"}, pre.TypedName())

	for _, ok := range []string{"", "null", " {} "} {
		_, err := Factory("x", json.RawMessage(ok), nil)
		assert.NoError(t, err, "parameters %q", ok)
	}
	_, err := Factory("x", json.RawMessage(`{"header":"x"}`), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown parameter "header"`)
	_, err = Factory("x", json.RawMessage(`[1]`), nil)
	assert.ErrorContains(t, err, "want a JSON object")

	p, err := Factory("", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, Type, p.TypedName().Name, "an unnamed instance is named after its type")
}

func TestPreRequest(t *testing.T) {
	tokens := bbrhints.EncodeTokenData([]uint32{1, 2, 3})
	cases := []struct {
		name    string
		headers map[string]string
		want    map[string]string
	}{{
		name:    "valid id and token data",
		headers: map[string]string{"x-worker-instance-id": " 0042 ", bbrhints.InjectTokenDataHeader: " " + tokens + " ", "x-other": "kept"},
		want: map[string]string{
			"x-worker-instance-id":                  "42",
			"x-epp-inject-nvext-worker-instance-id": "42",
			"x-epp-inject-nvext-token-data":         tokens,
			"x-other":                               "kept",
		},
	}, {
		name:    "header name in any case",
		headers: map[string]string{"X-Worker-Instance-ID": "7"},
		want:    map[string]string{"x-worker-instance-id": "7", "x-epp-inject-nvext-worker-instance-id": "7"},
	}, {
		name:    "non-integer id drops every hint",
		headers: map[string]string{"x-worker-instance-id": "seven", bbrhints.InjectTokenDataHeader: tokens, "x-other": "kept"},
		want:    map[string]string{"x-other": "kept"},
	}, {
		name:    "negative id is rejected",
		headers: map[string]string{"x-worker-instance-id": "-3"},
		want:    map[string]string{},
	}, {
		name:    "client-sent inject headers without a worker id are removed",
		headers: map[string]string{"X-EPP-Inject-Nvext-Worker-Instance-Id": "9", bbrhints.InjectTokenDataHeader: tokens},
		want:    map[string]string{},
	}, {
		name:    "client-sent inject header is replaced by the validated id",
		headers: map[string]string{"x-worker-instance-id": "5", "x-epp-inject-nvext-worker-instance-id": "9"},
		want:    map[string]string{"x-worker-instance-id": "5", "x-epp-inject-nvext-worker-instance-id": "5"},
	}, {
		name:    "no id, nothing to do",
		headers: map[string]string{"x-other": "kept"},
		want:    map[string]string{"x-other": "kept"},
	}}
	pre := fromRegistry(t, "dyn-pre", "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := &types.LLMRequest{Headers: tc.headers}
			pre.PreRequest(context.Background(), req, &types.SchedulingResult{}, 8000)
			assert.Equal(t, tc.want, req.Headers)
		})
	}
}

func TestPreRequestNilSafety(t *testing.T) {
	pre := New("p")
	assert.NotPanics(t, func() { pre.PreRequest(context.Background(), nil, nil, 0) })
	req := &types.LLMRequest{}
	pre.PreRequest(context.Background(), req, nil, 0)
	assert.NotNil(t, req.Headers)
	assert.Empty(t, req.Headers)
}

// One plugin instance serves every request; each request's headers must end
// up with its own id.
func TestPreRequestConcurrentRequests(t *testing.T) {
	pre := New("p")
	var wg sync.WaitGroup
	reqs := make([]*types.LLMRequest, 64)
	for i := range reqs {
		reqs[i] = &types.LLMRequest{Headers: map[string]string{"x-worker-instance-id": formatID(uint64(i))}}
		wg.Add(1)
		go func(r *types.LLMRequest) {
			defer wg.Done()
			pre.PreRequest(context.Background(), r, nil, 0)
		}(reqs[i])
	}
	wg.Wait()
	for i, r := range reqs {
		assert.Equal(t, formatID(uint64(i)), r.Headers[bbrhints.InjectWorkerIDHeader])
	}
}
