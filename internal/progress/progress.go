// Package progress shows how long work is going, as buildx's progress
// display does: a live line rewritten in place on a terminal (cut to its
// width), plain lines (rate-limited) when the output is a log, one JSON
// object a line for a program, nothing when quiet.
package progress

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/epp-build/epp-build/internal/textsafe"
)

// Intervals between two updates of the same task: a terminal line (or a
// program reading JSON) can take them often, a log should not fill up.
const (
	TerminalInterval = 100 * time.Millisecond
	PlainInterval    = 2 * time.Second
)

// Reporter renders the progress of one task at a time (tasks run one after
// the other: fetch, then apply). A nil *Reporter reports nothing, so code
// that may or may not be watched calls it unconditionally.
type Reporter struct {
	mu       sync.Mutex
	out      io.Writer
	mode     Mode // Terminal, Plain or RawJSON
	interval time.Duration
	// now is the clock and width the terminal's columns; tests replace
	// them.
	now   func() time.Time
	width func() int
	// shown is whether a live line is on screen (and must be cleared
	// before a plain line is written).
	shown bool
}

// New returns a reporter writing to out in mode; Auto becomes Terminal on
// a terminal that can rewrite a line (see Resolve). Quiet returns nil.
func New(out io.Writer, mode Mode) *Reporter {
	return newReporter(out, Resolve(mode, out), time.Now, func() int { return Width(out) })
}

func newReporter(out io.Writer, mode Mode, now func() time.Time, width func() int) *Reporter {
	switch mode {
	case Quiet:
		return nil
	case Terminal, RawJSON:
		return &Reporter{out: out, mode: mode, interval: TerminalInterval, now: now, width: width}
	}
	return &Reporter{out: out, mode: Plain, interval: PlainInterval, now: now, width: width}
}

// Linef writes one line (a patch applied, a notice) above any live line.
// It is never cut: a notice's cause must stay whole.
func (r *Reporter) Linef(format string, args ...any) {
	if r == nil {
		return
	}
	text := textsafe.Escape(fmt.Sprintf(format, args...))
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode == RawJSON {
		r.event(lineEvent{Time: r.now(), Event: "line", Text: text})
		return
	}
	r.clear()
	fmt.Fprintln(r.out, text)
}

// Start begins a task that moves total bytes (0 or less: unknown).
func (r *Reporter) Start(name string, total int64) *Task {
	if r == nil {
		return nil
	}
	start := r.now()
	return &Task{r: r, name: textsafe.Escape(name), total: total, start: start, last: start}
}

// clear removes the live line; r.mu is held.
func (r *Reporter) clear() {
	if r.shown {
		io.WriteString(r.out, "\r\x1b[K")
		r.shown = false
	}
}

// fit cuts a task's line to the terminal, one column short of its width
// so the cursor never wraps to a new line; r.mu is held.
func (r *Reporter) fit(name, state string) string {
	return fitTask(name, state, r.width()-1)
}

// Task is one measured piece of work. It is an io.Writer that counts what
// is written to it, so it can be teed onto a download. A nil *Task does
// nothing.
type Task struct {
	r           *Reporter
	name        string
	total, done int64
	start, last time.Time
	finished    bool
}

// Write counts len(p) bytes.
func (t *Task) Write(p []byte) (int, error) {
	t.Add(int64(len(p)))
	return len(p), nil
}

// Add counts n more bytes and shows them when the last update is older
// than the reporter's interval.
func (t *Task) Add(n int64) {
	if t == nil {
		return
	}
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	t.done += n
	now := r.now()
	if t.finished || now.Sub(t.last) < r.interval {
		return
	}
	t.last = now
	switch r.mode {
	case Terminal:
		r.clear()
		io.WriteString(r.out, r.fit(t.name, t.state(now)))
		r.shown = true
	case RawJSON:
		r.event(taskEvent{Time: now, Event: "progress", Task: t.name, Bytes: t.done, Total: max(t.total, 0),
			Rate: rate(t.done, now.Sub(t.start))})
	default:
		fmt.Fprintln(r.out, t.name+": "+t.state(now))
	}
}

// Done ends the task with its final line: the bytes, the time and the
// average rate.
func (t *Task) Done() {
	if t == nil {
		return
	}
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.finished {
		return
	}
	t.finished = true
	now := r.now()
	took := now.Sub(t.start)
	var state string
	if t.done == 0 && t.total <= 0 { // a step that moves no bytes
		state = fmt.Sprintf("done in %s", took.Round(10*time.Millisecond))
	} else {
		state = fmt.Sprintf("%s in %s (%s/s), done", Bytes(t.done), took.Round(10*time.Millisecond), Bytes(rate(t.done, took)))
	}
	switch r.mode {
	case Terminal:
		// It takes the live line's place: it fits the screen as that did.
		r.clear()
		fmt.Fprintln(r.out, r.fit(t.name, state))
	case RawJSON:
		r.event(taskEvent{Time: now, Event: "done", Task: t.name, Bytes: t.done, Total: max(t.total, 0),
			Rate: rate(t.done, took), Seconds: took.Seconds()})
	default:
		fmt.Fprintln(r.out, t.name+": "+state)
	}
}

// Abort ends a task that failed: its live line is cleared and no final
// line is written, so the error that follows stands on its own line.
func (t *Task) Abort() {
	if t == nil {
		return
	}
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.finished {
		return
	}
	t.finished = true
	if r.mode == RawJSON {
		r.event(taskEvent{Time: r.now(), Event: "abort", Task: t.name, Bytes: t.done, Total: max(t.total, 0)})
		return
	}
	r.clear()
}

// state is the task's progress: bytes so far (of the total when known)
// and the average rate.
func (t *Task) state(now time.Time) string {
	amount := Bytes(t.done)
	if t.total > 0 {
		amount += " / " + Bytes(t.total)
	}
	return fmt.Sprintf("%s (%s/s)", amount, Bytes(rate(t.done, now.Sub(t.start))))
}

func rate(n int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(float64(n) / d.Seconds())
}

// Bytes formats n with a binary unit: "512 B", "1.5 KiB", "17.0 MiB".
func Bytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if f < 1024 {
			break
		}
		f, unit = f/1024, u
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}
