package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GOPROXY from `go env -w` (the go env file) is the proxy the upstream
// fetch asks, as it is for the fetches inside the solve (build's
// TestTheGoEnvFileReachesTheSolve).
func TestTheGoEnvFileReachesTheProxyFetch(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	file := filepath.Join(t.TempDir(), "env")
	require.NoError(t, os.WriteFile(file, []byte("GOPROXY="+proxy.URL+"\n"), 0o644))
	t.Setenv("GOENV", file)
	t.Setenv("GOPROXY", "")
	t.Setenv("GONOPROXY", "")
	t.Setenv("GOPRIVATE", "")

	tree, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, GoProxy, tree.Via)
	assert.NotZero(t, proxy.requests.Load(), "the go env file's proxy is asked")
}
