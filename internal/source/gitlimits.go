package source

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"
)

// A git server decides what the receiver spends: a pack of a few hundred
// bytes can declare objects of gigabytes, deltas that copy a byte into
// gigabytes, billions of objects, trees nested without end or shallow
// lines without end, and the pinned commit is only known to be the right
// one once the whole pack is decoded. These limits bound each of those,
// as the go command bounds a module zip and git bounds tree depth
// (core.maxTreeDepth); the defaults leave GAIE (a pack of about 10 MB,
// a few thousand objects, trees a dozen deep) orders of magnitude of room.
const (
	// DefaultMaxPackBytes bounds the bytes received, and separately the
	// bytes the pack's objects hold once inflated.
	DefaultMaxPackBytes = 1 << 30
	// DefaultMaxObjectBytes bounds one object's declared size and a
	// delta's result, checked before anything is allocated for it.
	DefaultMaxObjectBytes = 256 << 20
	// DefaultMaxPackObjects bounds the objects a pack may declare.
	DefaultMaxPackObjects = 1_000_000
	// DefaultMaxTreeDepth is git's core.maxTreeDepth.
	DefaultMaxTreeDepth = 4096
	// DefaultMaxShallowLines bounds the shallow lines before the pack (a
	// depth-1 fetch of one commit gets at most one per parent).
	DefaultMaxShallowLines = 1024
	// DefaultFetchTimeout bounds a whole git fetch, however steadily the
	// server sends.
	DefaultFetchTimeout = 30 * time.Minute
)

// The settings that raise the limits.
const (
	MaxPackEnv         = "EPP_BUILD_MAX_PACK_MB"
	MaxObjectEnv       = "EPP_BUILD_MAX_OBJECT_MB"
	MaxPackObjectsEnv  = "EPP_BUILD_MAX_PACK_OBJECTS"
	MaxTreeDepthEnv    = "EPP_BUILD_MAX_TREE_DEPTH"
	MaxShallowLinesEnv = "EPP_BUILD_MAX_SHALLOW_LINES"
	FetchTimeoutEnv    = "EPP_BUILD_FETCH_TIMEOUT"
)

// gitLimits are the limits of one fetch.
type gitLimits struct {
	packBytes, objectBytes int64
	objects                uint32
	treeDepth              int
	shallowLines           int
	fetchTime              time.Duration
}

func defaultGitLimits() gitLimits {
	return gitLimits{DefaultMaxPackBytes, DefaultMaxObjectBytes, DefaultMaxPackObjects, DefaultMaxTreeDepth, DefaultMaxShallowLines, DefaultFetchTimeout}
}

// gitLimitsFromEnv is the defaults, each replaced by its setting when that
// holds a positive number (a duration for the fetch time); a setting that
// does not is an error naming it, as a typo must not silently keep, or
// drop, a limit.
func gitLimitsFromEnv() (gitLimits, error) {
	l := defaultGitLimits()
	ints := []struct {
		env   string
		unit  int64
		max   int64
		apply func(int64)
	}{
		{MaxPackEnv, 1 << 20, 1 << 43, func(v int64) { l.packBytes = v }},
		{MaxObjectEnv, 1 << 20, 1 << 43, func(v int64) { l.objectBytes = v }},
		{MaxPackObjectsEnv, 1, 1<<32 - 1, func(v int64) { l.objects = uint32(v) }},
		{MaxTreeDepthEnv, 1, 1 << 20, func(v int64) { l.treeDepth = int(v) }},
		{MaxShallowLinesEnv, 1, 1 << 30, func(v int64) { l.shallowLines = int(v) }},
	}
	for _, s := range ints {
		v := os.Getenv(s.env)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > s.max/s.unit {
			return l, fmt.Errorf("%s=%q: want a positive whole number", s.env, v)
		}
		s.apply(n * s.unit)
	}
	if v := os.Getenv(FetchTimeoutEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return l, fmt.Errorf("%s=%q: want a positive Go duration such as 45m", FetchTimeoutEnv, v)
		}
		l.fetchTime = d
	}
	return l, nil
}

// LimitError is a git server's answer (or, for the tree's depth, any
// upstream tree) refused for going over one of these limits. Nothing of
// it is kept in the cache.
type LimitError struct {
	// Limit names what went over ("the pack's size", "an object's
	// size", ...).
	Limit string
	// Value is what the server sent or declared (as far as it was read),
	// Max the limit, both in Unit ("bytes", "objects", "levels", "lines",
	// or "" for the fetch's time, in nanoseconds).
	Value, Max int64
	Unit       string
	// Server is the git repository's redacted URL ("" for a limit
	// met elsewhere, or before fetchGit names it).
	Server string
	// Setting is the environment variable that raises the limit.
	Setting string
}

func (e *LimitError) Error() string {
	// A tree too deep can come from a module zip or a local folder too.
	where := "upstream"
	if e.Server != "" {
		where = "git fetch " + e.Server
	}
	var what string
	switch e.Unit {
	case "":
		what = "the fetch took longer than the limit of " + time.Duration(e.Max).String()
	case "bytes":
		what = fmt.Sprintf("%s (%d bytes) is over the limit of %s", e.Limit, e.Value, mib(e.Max))
	default:
		what = fmt.Sprintf("%s (%d %s) is over the limit of %d", e.Limit, e.Value, e.Unit, e.Max)
	}
	return fmt.Sprintf("%s: refused: %s; nothing of it was kept (if the upstream really is this large, raise %s, else check where it comes from)", where, what, e.Setting)
}

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// fetchTimeLimit is the cause a fetch's context ends with when the fetch
// took longer than d.
func fetchTimeLimit(d time.Duration) *LimitError {
	return &LimitError{Limit: "the fetch's time", Value: int64(d), Max: int64(d), Setting: FetchTimeoutEnv}
}

// limitCause is the *LimitError that ended ctx, if one did.
func limitCause(ctx context.Context) (*LimitError, bool) {
	e, ok := context.Cause(ctx).(*LimitError)
	return e, ok
}
