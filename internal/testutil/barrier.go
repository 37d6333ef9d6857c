package testutil

import (
	"sync"
	"testing"
	"time"
)

// Barrier holds each of n goroutines at Arrive until all n have arrived,
// to line up a race deterministically. A goroutine that never arrives
// fails the test after ten seconds instead of hanging it.
type Barrier struct {
	t       testing.TB
	arrived sync.WaitGroup
	all     chan struct{}
}

// NewBarrier is a Barrier for n goroutines.
func NewBarrier(t testing.TB, n int) *Barrier {
	b := &Barrier{t: t, all: make(chan struct{})}
	b.arrived.Add(n)
	go func() {
		b.arrived.Wait()
		close(b.all)
	}()
	return b
}

// Arrive waits for the other goroutines; each of the n calls it once.
func (b *Barrier) Arrive() {
	b.arrived.Done()
	select {
	case <-b.all:
	case <-time.After(10 * time.Second):
		b.t.Errorf("barrier: not every goroutine arrived within ten seconds")
	}
}
