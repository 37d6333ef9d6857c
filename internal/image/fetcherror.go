package image

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/moby/buildkit/client"

	"github.com/epp-build/epp-build/internal/redact"
)

// What the container mode fetches inside the solve.
const (
	FetchGoModules = "Go modules"
	FetchCrates    = "crates"
)

// FetchError means a step that fetches (the EPP's Go modules, the C API's
// crates) failed on the fetch: BuildKit's own error only says the step's
// process did not complete, so the step's output is read for the cause.
// It names what was fetched, from where, and the flag that fixes it.
type FetchError struct {
	What    string // FetchGoModules or FetchCrates
	URL     string // what the failing request asked (credentials masked); may be empty
	Problem string // the fetcher's own line (credentials masked)
	Fix     string
	// Settings are the fetch settings in effect, as the caller describes
	// them (e.g. GOPROXY=..., masked); may be empty.
	Settings string
	Err      error
}

func (e *FetchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fetching %s inside the solve failed", e.What)
	if e.URL != "" {
		fmt.Fprintf(&b, " (%s)", e.URL)
	}
	fmt.Fprintf(&b, ": %s", e.Problem)
	if e.Settings != "" {
		fmt.Fprintf(&b, " [%s]", e.Settings)
	}
	fmt.Fprintf(&b, ": %s", e.Fix)
	return redact.Text(b.String())
}

func (e *FetchError) Unwrap() error { return e.Err }

// fetchCause is one kind of fetch failure: the pattern that finds it in a
// fetcher's output and what to do about it.
type fetchCause struct {
	pattern *regexp.Regexp
	fix     string
}

// The causes in the order they are looked for: the first line matching the
// first cause wins (a TLS failure also says "Get ..." and "dial tcp").
var (
	goCauses = []fetchCause{
		{regexp.MustCompile(`x509: |tls: failed to verify certificate|certificate signed by unknown authority`),
			"the builder does not trust the server's certificate: behind a TLS-intercepting proxy, or with a module proxy that has its own CA, pass the CA with --ca-bundle FILE"},
		{regexp.MustCompile(`\b(401 Unauthorized|403 Forbidden)\b`),
			"the module proxy refused the request: give it credentials with --secret id=netrc,src=$HOME/.netrc, or a GOPROXY with user:password@ (--goproxy or GOPROXY; passed as a secret)"},
		{regexp.MustCompile(`\b407 Proxy Authentication Required\b`),
			"the HTTP proxy wants credentials: pass HTTPS_PROXY with them as --build-arg HTTPS_PROXY=..."},
		{regexp.MustCompile(`verifying .*(sum\.golang\.org|checksum database|GOSUMDB)|sumdb`),
			"the checksum database could not vouch for a module: for private modules set --gonosumdb PATTERN (or --goprivate PATTERN), or --gosumdb to one that is reachable"},
		{regexp.MustCompile(`\b(404 Not Found|410 Gone)\b`),
			"the module proxy does not serve the module: point --goproxy (or GOPROXY) at one that does, or mark private modules with --goprivate PATTERN"},
		{regexp.MustCompile(`connection refused|no such host|i/o timeout|network is unreachable|dial tcp|TLS handshake timeout|proxyconnect`),
			"the module proxy cannot be reached from the BuildKit daemon: set --goproxy URL (or GOPROXY) to one it can reach, or pass an HTTP proxy with --build-arg HTTPS_PROXY=URL"},
	}
	crateCauses = []fetchCause{
		{regexp.MustCompile(`(?i)SSL certificate problem|SSL peer certificate|certificate verify failed|unable to get local issuer certificate|self[- ]signed certificate`),
			"the builder does not trust the server's certificate: behind a TLS-intercepting proxy, or with a crate mirror that has its own CA, pass the CA with --ca-bundle FILE"},
		{regexp.MustCompile(`\b(401|403)\b.*|(?i)authentication required|token rejected|no token found`),
			"the registry refused the request: give its token as CARGO_REGISTRIES_<NAME>_TOKEN (a --secret id=CARGO_REGISTRIES_<NAME>_TOKEN,env=... or the environment)"},
		{regexp.MustCompile(`(?i)could(n't| not) resolve (host|proxy)|failed to connect|connection refused|timeout was reached|network is unreachable|failed to download|download of .* failed|failed to get .* as a dependency|unable to update registry|failed to query replaced source|failed to fetch`),
			"the crate registry cannot be reached from the BuildKit daemon: pass a mirror it can reach with --cargo-mirror URL (source replacement for crates.io) or --cargo-registry NAME=INDEX, or an HTTP proxy with --build-arg HTTPS_PROXY=URL"},
	}
	urlInLine = regexp.MustCompile("https?://[^\\s\"'`()<>\\]]+")
)

// fetchWatch reads the solve status on its way to the display and keeps
// the recent output of every step, so that a failed fetch step's cause
// can be found.
type fetchWatch struct {
	mu    sync.Mutex
	steps map[string]*stepLog // vertex digest -> its log
}

type stepLog struct {
	name    string
	failed  bool
	lines   []string
	partial string
}

// maxStepLines is how much of each step's output is kept.
const maxStepLines = 200

func watchFetch(in chan *client.SolveStatus) (chan *client.SolveStatus, *fetchWatch) {
	w := &fetchWatch{steps: map[string]*stepLog{}}
	fwd := make(chan *client.SolveStatus)
	go func() {
		defer close(fwd)
		for st := range in {
			w.note(st)
			fwd <- st
		}
	}()
	return fwd, w
}

func (w *fetchWatch) step(dgst string) *stepLog {
	s := w.steps[dgst]
	if s == nil {
		s = &stepLog{}
		w.steps[dgst] = s
	}
	return s
}

func (w *fetchWatch) note(st *client.SolveStatus) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range st.Vertexes {
		s := w.step(v.Digest.String())
		s.name = v.Name
		s.failed = s.failed || v.Error != ""
	}
	for _, l := range st.Logs {
		s := w.step(l.Vertex.String())
		text := s.partial + string(l.Data)
		lines := strings.Split(text, "\n")
		s.partial = lines[len(lines)-1]
		s.lines = append(s.lines, lines[:len(lines)-1]...)
		if over := len(s.lines) - maxStepLines; over > 0 {
			s.lines = s.lines[over:]
		}
	}
}

// explain returns a FetchError when a fetch step failed on a fetch, nil
// otherwise (err is then the solve's own error to report).
func (w *fetchWatch) explain(err error) *FetchError {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.steps {
		if !s.failed {
			continue
		}
		if fe := ExplainFetchLog(s.name, append(s.lines, s.partial)); fe != nil {
			fe.Err = err
			return fe
		}
	}
	return nil
}

// ExplainFetchLog finds the fetch failure in the output of the step
// named step; nil when the step is not a fetch step or its output shows
// no fetch failure.
func ExplainFetchLog(step string, lines []string) *FetchError {
	if !strings.Contains(step, fetchScriptPath) {
		return nil
	}
	what, causes := FetchGoModules, goCauses
	if strings.Contains(step, "/capi/build.sh") {
		what, causes = FetchCrates, crateCauses
	}
	for _, c := range causes {
		for _, line := range lines {
			if !c.pattern.MatchString(line) {
				continue
			}
			fe := &FetchError{What: what, Problem: redact.Text(strings.TrimSpace(line)), Fix: c.fix}
			if u := strings.TrimRight(urlInLine.FindString(line), ":.,;"); u != "" {
				fe.URL = redact.URL(u)
			}
			return fe
		}
	}
	return nil
}
