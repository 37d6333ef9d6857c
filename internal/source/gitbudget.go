package source

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// go-git reads a git server's http responses itself: the ref
// advertisement whole into memory, and the shallow lines before a pack
// into a list that grows as long as the server keeps sending them. The
// budget rides on the request's context down to gitBudgetTransport, which
// wraps each response body so that a server sending too much is stopped
// at the transport, and records the breach: go-git flattens the errors it
// reads into text, so the fetch asks the budget what happened.
type gitBudget struct {
	lim gitLimits

	mu     sync.Mutex
	breach *LimitError
}

type (
	gitBudgetKey  struct{}
	gitShallowKey struct{}
)

// withGitBudget is ctx carrying a budget of lim for the git requests made
// with it.
func withGitBudget(ctx context.Context, lim gitLimits) (context.Context, *gitBudget) {
	b := &gitBudget{lim: lim}
	return context.WithValue(ctx, gitBudgetKey{}, b), b
}

// expectShallowLines is ctx for an upload-pack request with a depth,
// whose response starts with shallow lines.
func expectShallowLines(ctx context.Context) context.Context {
	return context.WithValue(ctx, gitShallowKey{}, true)
}

// exceeded is the limit a response went over, if one did.
func (b *gitBudget) exceeded() *LimitError {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.breach
}

func (b *gitBudget) refuse(e *LimitError) *LimitError {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.breach == nil {
		b.breach = e
	}
	return b.breach
}

// gitBudgetTransport applies the budget of each request's context, if it
// has one, to the response body.
type gitBudgetTransport struct{ next http.RoundTripper }

func (t gitBudgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	b, ok := req.Context().Value(gitBudgetKey{}).(*gitBudget)
	if err != nil || !ok {
		return resp, err
	}
	body := &budgetedBody{body: resp.Body, b: b, max: b.lim.packBytes, shallowLeft: -1}
	if shallow, _ := req.Context().Value(gitShallowKey{}).(bool); shallow && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/git-upload-pack") {
		body.shallowLeft = b.lim.shallowLines
	}
	resp.Body = body
	return resp, nil
}

// budgetedBody counts a response's bytes and, while shallowLeft is not
// negative, the pkt-lines of its shallow section (which ends at the first
// flush-pkt), refusing the read that goes over either.
type budgetedBody struct {
	body io.ReadCloser
	b    *gitBudget
	n    int64
	max  int64
	// shallowLeft is the shallow lines still allowed, -1 once the
	// section is over (or there is none).
	shallowLeft int
	// pkt is the start of the current pkt-line read so far, want how many
	// more bytes of its payload remain.
	pkt  []byte
	want int
}

func (r *budgetedBody) Read(p []byte) (int, error) {
	if e := r.b.exceeded(); e != nil {
		return 0, e
	}
	if rest := r.max + 1 - r.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.body.Read(p)
	r.n += int64(n)
	if r.n > r.max {
		return n, r.b.refuse(&LimitError{Limit: "a response's size", Value: r.n, Max: r.max, Unit: "bytes", Setting: MaxPackEnv})
	}
	if r.shallowLeft >= 0 {
		if e := r.countShallow(p[:n]); e != nil {
			return n, r.b.refuse(e)
		}
	}
	return n, err
}

// countShallow follows the pkt-lines in data: 4 hex digits of length
// (the digits included), "0000" for a flush.
func (r *budgetedBody) countShallow(data []byte) *LimitError {
	for len(data) > 0 && r.shallowLeft >= 0 {
		if r.want > 0 {
			k := min(r.want, len(data))
			r.want -= k
			data = data[k:]
			continue
		}
		k := min(4-len(r.pkt), len(data))
		r.pkt = append(r.pkt, data[:k]...)
		data = data[k:]
		if len(r.pkt) < 4 {
			return nil
		}
		size, err := strconv.ParseUint(string(r.pkt), 16, 16)
		r.pkt = r.pkt[:0]
		switch {
		case err != nil:
			// Not a pkt-line: go-git will say so.
			r.shallowLeft = -1
		case size == 0:
			r.shallowLeft = -1
		case r.shallowLeft == 0:
			lim := r.b.lim.shallowLines
			return &LimitError{Limit: "the shallow lines before the pack", Value: int64(lim) + 1, Max: int64(lim), Unit: "lines", Setting: MaxShallowLinesEnv}
		default:
			r.shallowLeft--
			r.want = max(int(size)-4, 0)
		}
	}
	return nil
}

func (r *budgetedBody) Close() error { return r.body.Close() }
