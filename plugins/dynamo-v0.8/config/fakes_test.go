package config_test

import (
	"context"
	"hash/fnv"
	"sync"

	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/kvscorer"
	"github.com/epp-build/epp-build/plugins/dynamo-v0.8/workerid"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/plugins"
	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

const workers = 3

// hashRouter stands in for the C API: decode worker FNV-1a(request) mod 3,
// prefill worker the next one when disaggregation is enforced, one token
// (the request length). It records the bookkeeping calls.
type hashRouter struct {
	mu     sync.Mutex
	opened kvscorer.Config
	disagg bool
	added  map[string]uint64
	freed  []string
	closed bool
}

func (r *hashRouter) Select(_ context.Context, body []byte) (kvscorer.Selection, error) {
	h := fnv.New64a()
	_, _ = h.Write(body)
	decode := int64(h.Sum64() % workers)
	sel := kvscorer.Selection{DecodeWorkerID: decode, PrefillWorkerID: -1, TokenIDs: []uint32{uint32(len(body)), 4294967295}}
	if r.disagg {
		sel.PrefillWorkerID = (decode + 1) % workers
	}
	return sel, nil
}

func (r *hashRouter) AddRequest(id string, _ []uint32, worker uint64, _ uint32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.added[id] = worker
	return nil
}

func (r *hashRouter) FreeRequest(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.freed = append(r.freed, id)
	return nil
}

func (r *hashRouter) Close() error { r.mu.Lock(); r.closed = true; r.mu.Unlock(); return nil }

// handle is the plugins.Handle the runner would give (its own is unexported
// in GAIE v0.5.1).
type handle struct {
	ctx     context.Context
	mu      sync.Mutex
	plugins map[string]plugins.Plugin
}

func (h *handle) Context() context.Context { return h.ctx }
func (h *handle) Plugin(name string) plugins.Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.plugins[name]
}
func (h *handle) AddPlugin(name string, p plugins.Plugin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.plugins[name] = p
}
func (h *handle) GetAllPlugins() []plugins.Plugin {
	var out []plugins.Plugin
	for _, p := range h.GetAllPluginsWithNames() {
		out = append(out, p)
	}
	return out
}
func (h *handle) GetAllPluginsWithNames() map[string]plugins.Plugin {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]plugins.Plugin{}
	for k, v := range h.plugins {
		out[k] = v
	}
	return out
}

// bodyMutator is the method the patched director calls after PreRequest.
type bodyMutator interface {
	MutateRequestBody(ctx context.Context, request *types.LLMRequest, result *types.SchedulingResult, port int, body map[string]any)
}

var _ bodyMutator = (*workerid.Plugin)(nil)
