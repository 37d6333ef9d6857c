package booking

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Booking is one request's state at the router. Its methods are safe for
// concurrent use; End may be called any number of times from anywhere
// (end of stream, request cancellation, a failed registration) and cleans
// up once.
type Booking struct {
	id    string
	owner any
	m     *Manager

	mu              sync.Mutex
	prefillReserved bool // a prefill reservation is held: release it unless freed
	registered      bool // the decode request is registered: free_request ends it
	registering     int  // registrations in flight (the barrier)
	markStarted     bool
	endRequested    bool
	cleanupQueued   bool
	stops           []func() bool
	ended           chan struct{} // closed by End: marker retries stop

	// Touched only by the cleanup run and the reconciler, never together.
	endedAt time.Time
	retryAt time.Time
}

// ID is the booking id the EPP minted.
func (b *Booking) ID() string { return b.id }

// SetPrefillReserved records that a prefill reservation is held under the
// booking id, so the cleanup releases it.
func (b *Booking) SetPrefillReserved() {
	b.mu.Lock()
	b.prefillReserved = true
	b.mu.Unlock()
}

// PrefillReserved reports whether a prefill reservation is held.
func (b *Booking) PrefillReserved() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.prefillReserved
}

// StartRegistration opens the registration barrier: until finish is
// called, End only records the request to end, so cleanup can never free a
// booking before add_request has returned (which would leave the request
// registered after its free). finish(true) records the registration.
// ErrEnded means the booking already ended: do not register.
func (b *Booking) StartRegistration() (finish func(registered bool), err error) {
	b.mu.Lock()
	if b.endRequested {
		b.mu.Unlock()
		return nil, fmt.Errorf("register booking %s: %w", b.id, ErrEnded)
	}
	b.registering++
	b.mu.Unlock()
	var once sync.Once
	return func(registered bool) {
		once.Do(func() {
			b.mu.Lock()
			b.registering--
			if registered {
				b.registered = true
			}
			queue := b.registering == 0 && b.endRequested && !b.cleanupQueued
			if queue {
				b.cleanupQueued = true
			}
			b.mu.Unlock()
			if queue {
				b.queueCleanup()
			}
		})
	}, nil
}

// ErrEnded is returned for work on a booking that has already ended (its
// request was cancelled or finished).
var ErrEnded = errors.New("booking already ended")

// Ended is closed when the booking ends.
func (b *Booking) Ended() <-chan struct{} { return b.ended }

// ArmCancellation ends the booking when ctx is done (the client went away
// or the stream closed before the end of the response).
func (b *Booking) ArmCancellation(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { b.End() })
	b.mu.Lock()
	if b.endRequested {
		b.mu.Unlock()
		stop()
		return
	}
	b.stops = append(b.stops, stop)
	b.mu.Unlock()
}

// FirstChunk marks prefill complete once, in the background: the caller
// (the response stream) never waits for the router. Only a registered
// request is marked; after End nothing is.
func (b *Booking) FirstChunk() {
	b.mu.Lock()
	if b.markStarted || b.endRequested || !b.registered {
		b.mu.Unlock()
		return
	}
	b.markStarted = true
	b.mu.Unlock()
	if !b.m.marks.submit(b.runMark) {
		// The mark only releases prefill load early; the free at the end
		// releases it anyway, so dropping it under pressure is safe.
		b.m.opt.Logger.Info("mark queue full; prefill load is released at the end of the request instead", "booking", b.id)
	}
}

func (b *Booking) runMark() {
	opt := b.m.opt
	for attempt := 1; ; attempt++ {
		select {
		case <-b.ended:
			return // the cleanup frees the request; a mark now is pointless
		default:
		}
		err := b.m.router.MarkPrefillComplete(b.id)
		if err == nil {
			return
		}
		if attempt >= opt.MarkAttempts {
			opt.Logger.Info("mark prefill complete failed; giving up", "booking", b.id, "attempts", attempt, "error", err.Error())
			return
		}
		if !b.wait(time.Duration(attempt)*opt.MarkBackoff, b.ended) {
			return
		}
	}
}

// wait sleeps d unless stop or the manager's stop comes first.
func (b *Booking) wait(d time.Duration, stop <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	case <-b.m.stop:
		return false
	}
}

// End ends the booking: the cleanup is queued once, or, while a
// registration is in flight, when that registration finishes.
func (b *Booking) End() {
	b.mu.Lock()
	if b.endRequested {
		b.mu.Unlock()
		return
	}
	b.endRequested = true
	close(b.ended)
	stops := b.stops
	b.stops = nil
	queue := b.registering == 0
	if queue {
		b.cleanupQueued = true
	}
	b.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	if queue {
		b.queueCleanup()
	}
}

func (b *Booking) queueCleanup() {
	b.endedAt = b.m.opt.Now()
	b.m.enqueueCleanup(b)
}

// runCleanup frees a registered request (which drops its booking too) or
// releases a reservation that never got a decode registration. Never both:
// a booking is ended by exactly one of the two calls.
func (b *Booking) runCleanup() {
	b.mu.Lock()
	registered, reserved := b.registered, b.prefillReserved
	b.mu.Unlock()
	var call func(string) error
	switch {
	case registered:
		call = b.m.router.FreeRequest
	case reserved:
		call = b.m.router.ReleasePrefillReservation
	default:
		b.m.forget(b) // nothing is held at the router
		return
	}
	opt := b.m.opt
	var err error
	for attempt := 1; attempt <= opt.FreeAttempts; attempt++ {
		if err = call(b.id); err == nil {
			b.m.forget(b)
			return
		}
		if attempt < opt.FreeAttempts && !b.wait(time.Duration(attempt)*opt.FreeBackoff, nil) {
			break
		}
	}
	opt.Logger.Info("booking cleanup failed; the reconciler retries it", "booking", b.id, "error", err.Error())
	b.m.park(b, opt.Now().Add(opt.RetryExhaustedAfter))
}
