package kvscorer

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"sigs.k8s.io/gateway-api-inference-extension/pkg/epp/scheduling/types"
)

type failingRouter struct{ added int }

func (r *failingRouter) Select(context.Context, []byte) (Selection, error) {
	return Selection{}, errors.New("no workers")
}
func (r *failingRouter) AddRequest(string, []uint32, uint64, uint32) error { r.added++; return nil }
func (r *failingRouter) FreeRequest(string) error                          { return nil }
func (r *failingRouter) Close() error                                      { return nil }

// A client's worker headers must not survive a router failure: Dynamo's
// scorer left them, and its body mutator then routed on them.
func TestRouterFailureDropsClientWorkerHeaders(t *testing.T) {
	router := &failingRouter{}
	s := New("dyn-kv", Config{}, router)
	request := &types.LLMRequest{RequestId: "r", Headers: map[string]string{
		"X-Worker-Instance-Id": "7", PrefillWorkerIDHeader: "8", TokenDataHeader: "W10=", "x-keep": "1"}}
	scores := s.Score(context.Background(), nil, request, nil)
	assert.Empty(t, scores)
	assert.Equal(t, map[string]string{"x-keep": "1"}, request.Headers)
	assert.Zero(t, router.added, "nothing is registered without a decision")
}
