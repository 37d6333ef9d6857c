package kvscorer

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"sync"
)

// fakeRouter picks a worker from the prompt (FNV-1a modulo workers) and
// returns one token per prompt byte, like the Rust test double, so results
// differ per request and can be predicted.
type fakeRouter struct {
	mu      sync.Mutex
	workers int64
	err     error
	calls   int
	closed  int
	lastReq []byte
}

type routerChat struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

var errFakeClosed = errors.New("fake router closed")

func (f *fakeRouter) Select(_ context.Context, requestJSON []byte) (Selection, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.lastReq = append([]byte(nil), requestJSON...)
	if f.closed > 0 {
		return Selection{}, errFakeClosed
	}
	if f.err != nil {
		return Selection{}, f.err
	}
	var req routerChat
	if err := json.Unmarshal(requestJSON, &req); err != nil {
		return Selection{}, err
	}
	prompt := ""
	for _, m := range req.Messages {
		prompt += m.Content
	}
	return Selection{WorkerID: expectedWorker(prompt, f.workers), TokenIDs: expectedTokens(prompt)}, nil
}

func (f *fakeRouter) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed++
	return nil
}

func (f *fakeRouter) snapshot() (calls, closed int, last []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, f.closed, f.lastReq
}

func expectedWorker(prompt string, workers int64) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(prompt))
	return int64(h.Sum64()%uint64(workers)) + 100
}

func expectedTokens(prompt string) []uint32 {
	out := make([]uint32, len(prompt))
	for i := range len(prompt) {
		out[i] = uint32(prompt[i])
	}
	return out
}
