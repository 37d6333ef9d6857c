package source

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/progress"
)

// TestGitFetchReportsThePackBytes: plain progress of a git fetch over HTTP
// ends with a line giving exactly the bytes of the pack the server sent
// (kept as received in the cache entry).
func TestGitFetchReportsThePackBytes(t *testing.T) {
	f := newFixture(t)
	srv := newCountingServer(t, filepath.Dir(f.repo.Dir))
	url := f.repo.HTTPURL(srv.URL)
	var out bytes.Buffer
	tree := fetch(t, Request{Pin: pin(url, "v1.0.0", f.rel), Kind: Git, CacheDir: t.TempDir(), Progress: progress.New(&out, progress.Plain)})

	packs, err := filepath.Glob(filepath.Join(tree.GitDir, "objects", "pack", "pack-*.pack"))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	fi, err := os.Stat(packs[0])
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	assert.True(t, strings.HasPrefix(last, "fetch "+url+": "+progress.Bytes(fi.Size())+" in "), last)
	assert.True(t, strings.HasSuffix(last, "/s), done"), last)

	// A cached tree moves no bytes and reports nothing.
	out.Reset()
	fetch(t, Request{Pin: pin(url, "v1.0.0", f.rel), Kind: Git, CacheDir: filepath.Dir(filepath.Dir(tree.dir)), Progress: progress.New(&out, progress.Plain)})
	assert.Empty(t, out.String())
}

// TestGoProxyReportsTheZipBytes: the module zip's download is reported
// with its size; the small .info document is not.
func TestGoProxyReportsTheZipBytes(t *testing.T) {
	f := newFixture(t)
	proxy := newFakeProxy(t, f, f.rel)
	t.Setenv("GOPROXY", proxy.URL)
	var out bytes.Buffer
	_, err := Fetch(context.Background(), Request{Pin: proxy.pin("", f.rel), Kind: GoProxy, CacheDir: t.TempDir(), Progress: progress.New(&out, progress.Plain)})
	require.NoError(t, err)
	want := "download " + proxy.URL + "/" + fakeModule + "/@v/" + fakeVersion + ".zip: " + progress.Bytes(int64(len(proxy.zip))) + " in "
	assert.True(t, strings.HasPrefix(out.String(), want), out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "\n"), out.String())
	assert.NotContains(t, out.String(), ".info")
}
