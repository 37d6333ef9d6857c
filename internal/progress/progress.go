// Package progress shows how long work is going, as BuildKit's progress
// display does: a live line rewritten in place on a terminal, plain lines
// (rate-limited) when the output is a log, nothing when quiet.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Mode is how progress is shown: the values of --progress.
type Mode string

const (
	// Auto is Terminal when the output is a terminal, else Plain.
	Auto  Mode = "auto"
	Plain Mode = "plain"
	Quiet Mode = "quiet"
	// Terminal rewrites one live line in place; Auto picks it.
	Terminal Mode = "tty"
)

// Modes are the values --progress accepts.
var Modes = []string{string(Auto), string(Plain), string(Quiet)}

// ModeError is a --progress value that is no mode.
type ModeError struct{ Value string }

func (e *ModeError) Error() string {
	return fmt.Sprintf("--progress %q: use %s", e.Value, strings.Join(Modes, ", "))
}

// ParseMode reads a --progress value; "" is Auto.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if m == "" {
		return Auto, nil
	}
	if err := m.Check(); err != nil {
		return "", err
	}
	return m, nil
}

// Check is nil for a mode --progress accepts ("" is Auto), else a
// *ModeError: a stage that takes a Mode from a flag it bound directly
// refuses a bad one with the other bad options, before any work.
func (m Mode) Check() error {
	switch m {
	case "", Auto, Plain, Quiet:
		return nil
	}
	return &ModeError{Value: string(m)}
}

// Intervals between two updates of the same task: a terminal line can
// change often, a log should not fill up.
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
	live     bool // rewrite the current line instead of adding lines
	interval time.Duration
	// now is the clock; tests replace it.
	now func() time.Time
	// shown is whether a live line is on screen (and must be cleared
	// before a plain line is written).
	shown bool
}

// New returns a reporter writing to out in mode; Auto becomes Terminal when
// out is a terminal. Quiet returns nil.
func New(out io.Writer, mode Mode) *Reporter {
	if mode == Auto || mode == "" {
		mode = Plain
		if isTerminal(out) {
			mode = Terminal
		}
	}
	return newWithClock(out, mode, time.Now)
}

func newWithClock(out io.Writer, mode Mode, now func() time.Time) *Reporter {
	switch mode {
	case Quiet:
		return nil
	case Terminal:
		return &Reporter{out: out, live: true, interval: TerminalInterval, now: now}
	}
	return &Reporter{out: out, interval: PlainInterval, now: now}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Linef writes one line (a patch applied, a step finished) above any live
// line.
func (r *Reporter) Linef(format string, args ...any) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clear()
	fmt.Fprintf(r.out, format+"\n", args...)
}

// Start begins a task that moves total bytes (0 or less: unknown).
func (r *Reporter) Start(name string, total int64) *Task {
	if r == nil {
		return nil
	}
	start := r.now()
	return &Task{r: r, name: name, total: total, start: start, last: start}
}

// clear removes the live line; r.mu is held.
func (r *Reporter) clear() {
	if r.shown {
		io.WriteString(r.out, "\r\x1b[K")
		r.shown = false
	}
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
	if r.live {
		r.clear()
		io.WriteString(r.out, t.line(now))
		r.shown = true
		return
	}
	fmt.Fprintln(r.out, t.line(now))
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
	r.clear()
	if t.done == 0 && t.total <= 0 { // a step that moves no bytes
		fmt.Fprintf(r.out, "%s: done in %s\n", t.name, now.Sub(t.start).Round(10*time.Millisecond))
		return
	}
	fmt.Fprintf(r.out, "%s: %s in %s (%s/s), done\n", t.name, Bytes(t.done), now.Sub(t.start).Round(10*time.Millisecond), Bytes(rate(t.done, now.Sub(t.start))))
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
	if !t.finished {
		t.finished = true
		r.clear()
	}
}

// line is the task's state: bytes so far (of the total when known) and
// the average rate.
func (t *Task) line(now time.Time) string {
	amount := Bytes(t.done)
	if t.total > 0 {
		amount += " / " + Bytes(t.total)
	}
	return fmt.Sprintf("%s: %s (%s/s)", t.name, amount, Bytes(rate(t.done, now.Sub(t.start))))
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
