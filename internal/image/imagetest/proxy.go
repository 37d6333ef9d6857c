package imagetest

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
)

// FaultProxy sits in front of a registry and misbehaves on purpose: it
// answers the first FailFirst requests with Status, or refuses every
// request with 401 when RefuseAuth is set.
type FaultProxy struct {
	Server     *httptest.Server
	Host       string
	failFirst  int64
	status     int
	refuseAuth bool
	failed     atomic.Int64
	authSeen   atomic.Value // last Authorization header seen (for tests)
}

// NewFaultProxy proxies to the registry at host. failFirst < 0 fails
// forever.
func NewFaultProxy(host string, failFirst int, status int, refuseAuth bool) *FaultProxy {
	target, _ := url.Parse("http://" + host)
	rp := httputil.NewSingleHostReverseProxy(target)
	fp := &FaultProxy{failFirst: int64(failFirst), status: status, refuseAuth: refuseAuth}
	fp.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			fp.authSeen.Store(a)
		}
		if fp.refuseAuth {
			w.Header().Set("WWW-Authenticate", `Basic realm="epp-build-test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
		if fp.failFirst < 0 || fp.failed.Load() < fp.failFirst {
			fp.failed.Add(1)
			http.Error(w, "injected failure", fp.status)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	fp.Host = strings.TrimPrefix(fp.Server.URL, "http://")
	return fp
}

// Failed is how many requests got the injected status.
func (p *FaultProxy) Failed() int64 { return p.failed.Load() }

// SawAuthorization reports whether a client sent credentials.
func (p *FaultProxy) SawAuthorization() bool { return p.authSeen.Load() != nil }

// Close stops the proxy.
func (p *FaultProxy) Close() { p.Server.Close() }
