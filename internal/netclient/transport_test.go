package netclient

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStallWindowCutsADripButNotASlowTransfer: a body that moves
// MinProgress bytes in every window is read to its end however long it
// takes; one that drips fewer fails with a *StallError that Describe names
// as a timeout of the host. A pooled connection that sat idle past the
// window is not held against the next request.
func TestStallWindowCutsADripButNotASlowTransfer(t *testing.T) {
	const window = time.Second
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk, pause := strings.Repeat("x", 2*MinProgress), window/4
		if r.URL.Path == "/drip" {
			chunk, pause = "x", window/8
		}
		for i := 0; i < 8; i++ {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(pause):
			}
		}
	}))
	defer srv.Close()
	c := &http.Client{Transport: Transport(Timeouts{Connect: window, Header: window, Stall: window})}
	get := func(path string) (int, error) {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		return len(data), err
	}

	n, err := get("/slow")
	require.NoError(t, err, "a slow but live transfer spans several windows")
	assert.Equal(t, 8*2*MinProgress, n)

	time.Sleep(window + window/2) // the pooled connection idles past a window
	n, err = get("/slow")
	require.NoError(t, err)
	assert.Equal(t, 8*2*MinProgress, n)

	_, err = get("/drip")
	var stall *StallError
	require.True(t, errors.As(err, &stall), "a drip must be cut: %v", err)
	var timeout *TimeoutError
	require.ErrorAs(t, Describe("module proxy", "example.test", err), &timeout)
	assert.Contains(t, timeout.Error(), "module proxy example.test did not answer in time")
}
