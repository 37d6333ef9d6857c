// Package booking owns the router-side lifecycle of one request's booking:
// the prefill reservation and the decode registration made while
// scheduling, the first-token mark while the response streams, and the one
// cleanup at its end. A Manager is the single owner of every booking it
// opened: exactly one cleanup per booking, run on a bounded executor, with
// a reconciler that retries failed cleanups until a retention period ends.
package booking

import (
	"fmt"
	"sync"
	"time"
)

// Router is what the lifecycle calls on the KV router.
type Router interface {
	MarkPrefillComplete(id string) error
	FreeRequest(id string) error
	ReleasePrefillReservation(id string) error
}

// Manager tracks open bookings by id. It is safe for concurrent use.
type Manager struct {
	router   Router
	opt      Options
	marks    *executor
	cleanups *executor

	mu       sync.Mutex
	bookings map[string]*Booking
	parked   map[string]*Booking // cleanups waiting for the reconciler

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New starts a manager and its reconciler; Close stops them.
func New(router Router, opt Options) *Manager {
	m := &Manager{
		router:   router,
		opt:      opt.withDefaults(),
		bookings: map[string]*Booking{},
		parked:   map[string]*Booking{},
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	m.marks = newExecutor(m.opt.MarkWorkers, m.opt.MarkQueue)
	m.cleanups = newExecutor(m.opt.CleanupWorkers, m.opt.CleanupQueue)
	go m.reconcileLoop()
	return m
}

// ErrInUse is returned by Open for an id another request owns.
var ErrInUse = fmt.Errorf("booking id already in use")

// Open starts the lifecycle of booking id for owner (the request it belongs
// to). Opening the same id for the same owner returns the same booking.
func (m *Manager) Open(id string, owner any) (*Booking, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.bookings[id]; ok {
		if b.owner != owner {
			return nil, fmt.Errorf("open booking %s: %w", id, ErrInUse)
		}
		return b, nil
	}
	b := &Booking{id: id, owner: owner, m: m, ended: make(chan struct{})}
	m.bookings[id] = b
	return b, nil
}

// Lookup finds the booking id opened for owner. A booking id is only ever
// minted by the EPP, yet it travels in a request header; checking the owner
// means an id copied into another request's headers finds nothing.
func (m *Manager) Lookup(id string, owner any) *Booking {
	if id == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.bookings[id]
	if b == nil || b.owner != owner {
		return nil
	}
	return b
}

// Outstanding is the number of bookings whose cleanup has not finished.
func (m *Manager) Outstanding() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.bookings)
}

// Parked is the number of cleanups waiting for the reconciler.
func (m *Manager) Parked() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.parked)
}

func (m *Manager) forget(b *Booking) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bookings[b.id] == b {
		delete(m.bookings, b.id)
	}
	delete(m.parked, b.id)
}

// park hands a cleanup to the reconciler, to run again at retryAt.
func (m *Manager) park(b *Booking, retryAt time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b.retryAt = retryAt
	m.parked[b.id] = b
}

// enqueueCleanup submits b's cleanup, or parks it when the queue is full.
func (m *Manager) enqueueCleanup(b *Booking) {
	if !m.cleanups.submit(b.runCleanup) {
		m.opt.Logger.Info("cleanup queue full; the reconciler will run it", "booking", b.id)
		m.park(b, m.opt.Now())
	}
}

func (m *Manager) reconcileLoop() {
	defer close(m.done)
	t := time.NewTicker(m.opt.ReconcileEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.Reconcile()
		}
	}
}

// Reconcile runs one reconciler pass: parked cleanups that are due are
// queued again; those ended longer than the retention ago are given up.
func (m *Manager) Reconcile() {
	now := m.opt.Now()
	var due, expired []*Booking
	m.mu.Lock()
	for id, b := range m.parked {
		switch {
		case now.Sub(b.endedAt) >= m.opt.Retention:
			expired = append(expired, b)
			delete(m.parked, id)
			delete(m.bookings, id)
		case !now.Before(b.retryAt):
			due = append(due, b)
			delete(m.parked, id)
		}
	}
	m.mu.Unlock()
	for _, b := range expired {
		m.opt.Logger.Info("giving up cleanup after the retention period; the router's stale-request reaper owns it now",
			"booking", b.id, "retention", m.opt.Retention)
	}
	for _, b := range due {
		m.enqueueCleanup(b)
	}
}

// Close stops the reconciler and the executors. Cleanups not yet run are
// dropped: Close comes with the router's own shutdown.
func (m *Manager) Close() {
	m.closeOnce.Do(func() {
		close(m.stop)
		<-m.done
		m.marks.close()
		m.cleanups.close()
	})
}
