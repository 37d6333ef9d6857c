package booking

import (
	"time"

	"github.com/go-logr/logr"
)

// Options tune the lifecycle. Zero fields take the defaults below, which
// follow the router's own bookkeeping limits.
type Options struct {
	// MarkAttempts bounds mark_prefill_complete calls per request (3); the
	// n-th retry waits n*MarkBackoff (100ms).
	MarkAttempts int
	MarkBackoff  time.Duration
	// FreeAttempts bounds the cleanup calls of one cleanup run (3); the
	// n-th retry waits n*FreeBackoff (100ms).
	FreeAttempts int
	FreeBackoff  time.Duration
	// Marker and cleanup work run on separate bounded executors so a flood
	// of first-token marks can never delay the cleanup that frees load.
	MarkWorkers    int // 32
	MarkQueue      int // 1024
	CleanupWorkers int // 32
	CleanupQueue   int // 4096
	// ReconcileEvery is how often parked cleanups are looked at (1s);
	// a cleanup that used all its attempts is retried after
	// RetryExhaustedAfter (30s).
	ReconcileEvery      time.Duration
	RetryExhaustedAfter time.Duration
	// Retention is how long after its end a booking is still owned here.
	// After that the router's own reaper of stale requests has it (10m).
	Retention time.Duration
	// Now is the clock (time.Now); tests move it to cross the retention.
	Now    func() time.Time
	Logger logr.Logger
}

// DefaultRetention is the retention when the router's request expiry is
// unknown.
const DefaultRetention = 10 * time.Minute

// RetentionFor is max(DefaultRetention, expiry + 2 minutes): a booking is
// kept at least as long as the router would keep the request, plus grace.
func RetentionFor(expiry time.Duration) time.Duration {
	return max(DefaultRetention, expiry+2*time.Minute)
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	dur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MarkAttempts, 3)
	def(&o.FreeAttempts, 3)
	def(&o.MarkWorkers, 32)
	def(&o.MarkQueue, 1024)
	def(&o.CleanupWorkers, 32)
	def(&o.CleanupQueue, 4096)
	dur(&o.MarkBackoff, 100*time.Millisecond)
	dur(&o.FreeBackoff, 100*time.Millisecond)
	dur(&o.ReconcileEvery, time.Second)
	dur(&o.RetryExhaustedAfter, 30*time.Second)
	dur(&o.Retention, DefaultRetention)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	return o
}
