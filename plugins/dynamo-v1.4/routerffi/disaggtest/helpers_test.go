//go:build routers_reservation_4 || routers_reservation_2 || routers_reservation_timeout

package disaggtest_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	fwkrh "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/requesthandling"
	fwksched "sigs.k8s.io/gateway-api-inference-extension/pkg/epp/framework/interface/scheduling"

	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/kvrouter"
	"github.com/epp-build/epp-build/plugins/dynamo-v1.4/routerffi"
)

// counting wraps the real binding and counts the lifecycle calls per id.
type counting struct {
	kvrouter.Router
	mu    sync.Mutex
	calls map[string][]string
	freed chan string
}

func (c *counting) note(id, op string) {
	c.mu.Lock()
	c.calls[id] = append(c.calls[id], op)
	c.mu.Unlock()
}

func (c *counting) ops(id string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls[id]...)
}

func (c *counting) MarkPrefillComplete(id string) error {
	c.note(id, "mark")
	return c.Router.MarkPrefillComplete(id)
}

func (c *counting) FreeRequest(id string) error {
	c.note(id, "free")
	err := c.Router.FreeRequest(id)
	c.freed <- id
	return err
}

// HasPrefillReservationBegin forwards the binding's answer, so the hooks
// see the library as it is.
func (c *counting) HasPrefillReservationBegin() bool {
	return c.Router.(kvrouter.ReservationBegin).HasPrefillReservationBegin()
}

func (c *counting) ReleasePrefillReservation(id string) error {
	c.note(id, "release")
	return c.Router.ReleasePrefillReservation(id)
}

func open(t *testing.T) *counting {
	t.Helper()
	r, err := routerffi.Open(kvrouter.Config{Namespace: "dynamo", Component: "backend"})
	require.NoError(t, err)
	return &counting{Router: r, calls: map[string][]string{}, freed: make(chan string, 16)}
}

func request() *fwksched.InferenceRequest {
	return &fwksched.InferenceRequest{
		RequestId: "gw-1",
		Headers:   map[string]string{},
		Body: &fwkrh.InferenceRequestBody{Payload: fwkrh.PayloadMap{
			"model": "qwen", "cache_salt": "tenant-a",
			"messages": []any{map[string]any{"role": "user", "content": "route me"}},
		}},
	}
}
