package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/progress"
	"golang.org/x/mod/module"

	"github.com/epp-build/epp-build/internal/goenv"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/redact"
)

// proxyEntry is one element of the GOPROXY list.
type proxyEntry struct {
	url string // a proxy base URL, "direct" or "off"
	// shown is url with any password replaced: what messages and the cache
	// entry say, so a credential in GOPROXY never leaves the request.
	shown string
	// anyError: the next entry is tried after any error ("|"), not only
	// after 404 or 410 (",").
	anyError bool
}

// goproxySetting is GOPROXY as the go command reads it, or its default.
func goproxySetting() string {
	return goenv.Load(nil).Value("GOPROXY")
}

// noProxyPatterns is GONOPROXY, which defaults to GOPRIVATE: the module
// path prefixes the go command never asks a proxy for. "none" clears it.
func noProxyPatterns() (setting, patterns string) {
	env := goenv.Load(nil)
	setting = "GONOPROXY"
	v := env.Get(setting)
	if v == "" {
		setting = "GOPRIVATE"
		v = env.Get(setting)
	}
	if v == "none" {
		v = ""
	}
	return setting, v
}

// parseGOPROXY splits a GOPROXY value into its entries.
func parseGOPROXY(v string) ([]proxyEntry, error) {
	var out []proxyEntry
	for v != "" {
		i := strings.IndexAny(v, ",|")
		item, sep := v, byte(0)
		if i >= 0 {
			item, sep = v[:i], v[i]
			v = v[i+1:]
		} else {
			v = ""
		}
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if item != "direct" && item != "off" {
			u, err := url.Parse(item)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "file") {
				return nil, fmt.Errorf("GOPROXY entry %q is not an http(s):// or file:// URL, direct or off", redact.Text(item))
			}
			rememberUserinfo(item)
		}
		item = strings.TrimSuffix(item, "/")
		out = append(out, proxyEntry{url: item, shown: redact.URL(item), anyError: sep == '|'})
	}
	if len(out) == 0 {
		return nil, errors.New("GOPROXY is empty")
	}
	return out, nil
}

// errProxyNotFound is a 404 or 410: the next "," entry may have it.
var errProxyNotFound = errors.New("not found")

// NotOnProxy reports whether err is the module proxy not having a version
// (a 404 or 410 from every proxy asked), as against a proxy failing.
func NotOnProxy(err error) bool { return errors.Is(err, errProxyNotFound) }

// notFoundError is a 404 or 410 in the proxy's words; it is
// errProxyNotFound for the GOPROXY list.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string        { return e.msg }
func (e *notFoundError) Is(target error) bool { return target == errProxyNotFound }

// statusError says what a proxy's answer other than 200 means, with what
// the proxy said (a short, redacted excerpt of its body): a 404 or 410 is
// the version not being there (the next "," entry may have it), a 401
// asks for credentials, a 403 is a refusal that may or may not be about
// them. nil for 200. It closes the body of any other answer.
func statusError(resp *http.Response, host string) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	said := ""
	if text := strings.TrimSpace(string(body)); text != "" {
		said = "; the proxy said: " + redact.Excerpt([]byte(text))
	}
	status := redact.Excerpt([]byte(resp.Status))
	credentials := fmt.Sprintf("a netrc entry for %s, or user:password@ in GOPROXY", host)
	switch resp.StatusCode {
	case http.StatusNotFound:
		return &notFoundError{fmt.Sprintf("%s: not available on this proxy%s", status, said)}
	case http.StatusGone:
		return &notFoundError{fmt.Sprintf("%s: gone from this proxy%s", status, said)}
	case http.StatusUnauthorized:
		return fmt.Errorf("%s: the proxy wants credentials (%s)%s", status, credentials, said)
	case http.StatusForbidden:
		return fmt.Errorf("%s: the proxy refused the request%s (if it needs credentials: %s)", status, said, credentials)
	}
	// The body is the server's to write: it may echo the request
	// (Authorization included), so only a redacted excerpt is shown.
	return fmt.Errorf("%s: %s", status, redact.Excerpt(body))
}

// proxyClient downloads one module version's files through the GOPROXY list.
type proxyClient struct {
	entries []proxyEntry
	http    *http.Client
	netrc   string // the netrc file's text, read once: credentials by host
	// progress shows a module zip's bytes as they arrive.
	progress *progress.Reporter
}

// newProxyClient reads the proxy list for mod; a module the go command
// would not fetch through a proxy (GONOPROXY, GOPRIVATE) is refused here too.
func newProxyClient(mod string) (*proxyClient, error) {
	if name, patterns := noProxyPatterns(); patterns != "" && module.MatchPrefixPatterns(patterns, mod) {
		return nil, fmt.Errorf("module %s matches %s=%s, so the go command fetches it from version control, not through a proxy; use --source git", mod, name, patterns)
	}
	setting := goproxySetting()
	entries, err := parseGOPROXY(setting)
	if err != nil {
		return nil, err
	}
	timeouts, err := netclient.FromEnv()
	if err != nil {
		return nil, err
	}
	return &proxyClient{entries: entries, http: &http.Client{Transport: netclient.Transport(timeouts)}, netrc: readNetrc()}, nil
}

// ModuleZipBytes is the most a module zip may hold: the go command's own
// limit (500 MiB), which no module it can fetch exceeds.
const ModuleZipBytes = 500 << 20

// ModuleZipLimitEnv raises it, in MiB.
const ModuleZipLimitEnv = "EPP_BUILD_MAX_MODULE_ZIP_MB"

// moduleFileLimit bounds what is read of one proxy file: the zip by
// ModuleZipBytes, the small JSON and go.mod files by a MiB.
func moduleFileLimit(suffix string) inputfile.Limit {
	if suffix == ".zip" {
		return inputfile.Limit{Bytes: inputfile.FromEnvMiB(ModuleZipLimitEnv, ModuleZipBytes), What: "a module zip",
			Raise: fmt.Sprintf("set %s to a larger number of MiB if the module is meant to be this large, else check the proxy", ModuleZipLimitEnv)}
	}
	return inputfile.Limit{Bytes: 1 << 20, What: "a module proxy " + suffix + " file", Raise: "check that GOPROXY names a module proxy"}
}

// download fetches <module>/@v/<version><suffix> and writes it to w; it
// returns the proxy that served it. Entries are tried in GOPROXY order.
func (p *proxyClient) download(ctx context.Context, mod, version, suffix string, open func() (io.WriteCloser, error)) (string, error) {
	escMod, err := module.EscapePath(mod)
	if err != nil {
		return "", fmt.Errorf("module path %q: %w", mod, err)
	}
	escVer, err := module.EscapeVersion(version)
	if err != nil {
		return "", fmt.Errorf("module version %q: %w", version, err)
	}
	rel := escMod + "/@v/" + escVer + suffix
	var (
		errs []string
		last error
	)
	for _, e := range p.entries {
		var err error
		switch e.url {
		case "off":
			errs = append(errs, "GOPROXY=off disallows module downloads")
			return "", fmt.Errorf("module proxy %s@%s%s: %s", mod, version, suffix, strings.Join(errs, "; "))
		case "direct":
			// The go command would clone the repository here; the git source
			// does that job, so "direct" serves nothing in this source.
			err = fmt.Errorf("direct: %w (direct means version control, use the git source for that)", errProxyNotFound)
		default:
			err = p.get(ctx, e.url, rel, open)
			if err == nil {
				return e.shown, nil
			}
			err = fmt.Errorf("%s: %w", e.shown, err)
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		errs, last = append(errs, err.Error()), err
		if !e.anyError && !errors.Is(err, errProxyNotFound) {
			break
		}
	}
	return "", &chainError{
		msg: fmt.Sprintf("module proxy %s@%s%s: %s (GOPROXY=%s)", mod, version, suffix, strings.Join(errs, "; "), redact.Text(goproxySetting())),
		err: last,
	}
}

// chainError is a message built from several errors that still answers
// errors.As for the last one (a deadline, a size limit).
type chainError struct {
	msg string
	err error
}

func (e *chainError) Error() string { return e.msg }
func (e *chainError) Unwrap() error { return e.err }

// get fetches base/rel into a writer from open.
func (p *proxyClient) get(ctx context.Context, base, rel string, open func() (io.WriteCloser, error)) error {
	var body io.ReadCloser
	size := int64(-1)
	if strings.HasPrefix(base, "file://") {
		f, err := os.Open(filepath.Join(strings.TrimPrefix(base, "file://"), filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			return errProxyNotFound
		}
		if err != nil {
			return err
		}
		body = f
	} else {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/"+rel, nil)
		if err != nil {
			return errors.New(redact.Text(err.Error()))
		}
		if req.URL.User == nil {
			if login, password, ok := lookupNetrc(p.netrc, req.URL.Hostname()); ok {
				redact.Remember(login, password)
				req.SetBasicAuth(login, password)
			}
		}
		resp, err := p.http.Do(req)
		if err != nil {
			return redact.Error(netclient.Describe("module proxy", req.URL.Host, err))
		}
		if err := statusError(resp, req.URL.Hostname()); err != nil {
			return err
		}
		body, size = resp.Body, resp.ContentLength
		host := req.URL.Host
		body = readCloser{describeReader{body, host}, body}
	}
	defer body.Close()
	shown := redact.URL(base) + "/" + rel
	limit := moduleFileLimit(path.Ext(rel))
	if size > limit.Bytes {
		return inputfile.TooLarge(shown, size, limit)
	}
	body = readCloser{inputfile.LimitReader(body, shown, limit), body}
	w, err := open()
	if err != nil {
		return err
	}
	var task *progress.Task
	if strings.HasSuffix(rel, ".zip") {
		task = p.progress.Start("download "+shown, size)
		defer task.Abort() // a no-op after Done
		w = struct {
			io.Writer
			io.Closer
		}{io.MultiWriter(w, task), w}
	}
	if _, err := io.Copy(w, body); err != nil {
		w.Close()
		return err
	}
	task.Done()
	return w.Close()
}

// moduleInfo is the proxy's .info document.
type moduleInfo struct {
	Version string
	Time    time.Time
	Origin  *moduleOrigin
}

// moduleOrigin is where the proxy says it built the version from.
type moduleOrigin struct {
	VCS, URL, Hash, Ref string
}

// HashOr, URLOr and RefOr read an Origin that may be missing.
func (o *moduleOrigin) HashOr() string {
	if o == nil {
		return ""
	}
	return o.Hash
}

func (o *moduleOrigin) URLOr() string {
	if o == nil {
		return ""
	}
	return o.URL
}

func (o *moduleOrigin) RefOr() string {
	if o == nil {
		return ""
	}
	return o.Ref
}

// info downloads and decodes <module>/@v/<version>.info.
func (p *proxyClient) info(ctx context.Context, mod, version string) (*moduleInfo, string, error) {
	var buf bufferCloser
	proxy, err := p.download(ctx, mod, version, ".info", func() (io.WriteCloser, error) {
		buf.Reset()
		return &buf, nil
	})
	if err != nil {
		return nil, "", err
	}
	var info moduleInfo
	if err := json.Unmarshal(buf.Bytes(), &info); err != nil {
		return nil, "", fmt.Errorf("module proxy %s: %s@%s.info: %w", proxy, mod, version, err)
	}
	return &info, proxy, nil
}

// zip downloads <module>/@v/<version>.zip to path.
func (p *proxyClient) zip(ctx context.Context, mod, version, path string) (string, error) {
	return p.download(ctx, mod, version, ".zip", func() (io.WriteCloser, error) {
		return os.Create(path)
	})
}

// describeReader names the proxy in a deadline hit while reading a body.
type describeReader struct {
	r    io.Reader
	host string
}

func (d describeReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = netclient.Describe("module proxy", d.host, err)
	}
	return n, err
}

type readCloser struct {
	io.Reader
	io.Closer
}

type bufferCloser struct{ strings.Builder }

func (b *bufferCloser) Close() error  { return nil }
func (b *bufferCloser) Bytes() []byte { return []byte(b.String()) }
