package source

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/testutil"
)

// silentServer accepts connections and never answers them, as a proxy
// whose backend hangs does.
func silentServer(t *testing.T) string {
	t.Helper()
	return "http://" + testutil.SilentServer(t)
}

// TestModuleProxyThatNeverAnswersTimesOut: a proxy that accepts the
// connection and says nothing fails the fetch at the deadline (shortened
// here through the environment) with an error naming the proxy's host and
// the setting that waits longer, instead of hanging the command.
func TestModuleProxyThatNeverAnswersTimesOut(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	silent := silentServer(t)
	t.Setenv("GOPROXY", silent)
	t.Setenv(netclient.TimeoutEnv, "300ms")
	err := testutil.Returns(t, "fetching from a silent proxy", func() error {
		_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
		return err
	})
	var timeout *netclient.TimeoutError
	require.ErrorAs(t, err, &timeout)
	host := strings.TrimPrefix(silent, "http://")
	assert.Contains(t, err.Error(), "module proxy "+host+" did not answer in time")
	assert.Contains(t, err.Error(), netclient.TimeoutEnv)
}

// TestModuleProxyThatDripsTheZipTimesOut: a proxy that sends the zip's
// headers and then a byte now and then (below the least progress a live
// transfer makes) is cut off, naming the proxy.
func TestModuleProxyThatDripsTheZipTimesOut(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, ".zip") {
			return true
		}
		w.Header().Set("Content-Length", "100000")
		for i := 0; ; i++ {
			if _, err := w.Write(proxy.zip[i%len(proxy.zip) : i%len(proxy.zip)+1]); err != nil {
				return false
			}
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return false
			case <-r.Context().Done():
				return false
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	t.Setenv("GOPROXY", proxy.URL)
	t.Setenv(netclient.TimeoutEnv, "300ms")
	cache := t.TempDir()
	err := testutil.Returns(t, "fetching a dripped zip", func() error {
		_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: cache})
		return err
	})
	var timeout *netclient.TimeoutError
	require.ErrorAs(t, err, &timeout, "%v", err)
	assert.Contains(t, err.Error(), "module proxy "+strings.TrimPrefix(proxy.URL, "http://"))
	assert.Empty(t, cacheEntries(t, cache))
}

// TestModuleZipOverTheLimitIsRefused: a zip larger than the limit is
// refused, whether the proxy announces its length or streams it, and the
// error names the setting that raises the limit.
func TestModuleZipOverTheLimitIsRefused(t *testing.T) {
	for _, announce := range []bool{true, false} {
		f := newFixture(t)
		proxy := newFakeProxy(t, f, f.rel)
		proxy.hook = func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasSuffix(r.URL.Path, ".zip") {
				return true
			}
			const size = 3 << 20
			if announce {
				w.Header().Set("Content-Length", "3145728")
			}
			chunk := make([]byte, 64<<10)
			for sent := 0; sent < size; sent += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return false
				}
				if !announce {
					w.(http.Flusher).Flush()
				}
			}
			return false
		}
		t.Setenv("GOPROXY", proxy.URL)
		t.Setenv(ModuleZipLimitEnv, "1")
		cache := t.TempDir()
		_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: cache})
		var refused *inputfile.Error
		require.True(t, errors.As(err, &refused), "announce %v: %v", announce, err)
		assert.Contains(t, err.Error(), "limit for a module zip", "announce %v", announce)
		assert.Contains(t, err.Error(), ModuleZipLimitEnv, "announce %v", announce)
		assert.Empty(t, cacheEntries(t, cache))
	}
}

func TestNetTimeoutFromTheEnvironment(t *testing.T) {
	t.Setenv(netclient.TimeoutEnv, "")
	got, err := netclient.FromEnv()
	require.NoError(t, err)
	assert.Equal(t, netclient.Timeouts{Connect: netclient.DefaultConnect, Header: netclient.DefaultHeader, Stall: netclient.DefaultStall}, got)
	t.Setenv(netclient.TimeoutEnv, "forever")
	_, err = netclient.FromEnv()
	assert.ErrorContains(t, err, netclient.TimeoutEnv+`="forever": want a positive Go duration`)
}

// TestGitServerThatNeverAnswersTimesOut: the git fetch gets the same
// deadlines as the module proxy.
func TestGitServerThatNeverAnswersTimesOut(t *testing.T) {
	silent := silentServer(t)
	t.Setenv(netclient.TimeoutEnv, "300ms")
	err := testutil.Returns(t, "fetching from a silent git server", func() error {
		_, err := Fetch(context.Background(), Request{Pin: pin(silent+"/gaie.git", "v1.0.0", strings.Repeat("a", 40)), Kind: Git, CacheDir: t.TempDir()})
		return err
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "git server "+strings.TrimPrefix(silent, "http://")+" did not answer in time")
	assert.Contains(t, err.Error(), netclient.TimeoutEnv)
}
