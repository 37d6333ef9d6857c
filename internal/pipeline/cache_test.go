//go:build integration

package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/report"
)

// An import from a cache ref that does not exist warns and builds cold,
// as buildx does.
func TestCacheImportFromMissingRefWarnsAndBuilds(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-cache-missing")
	opt.Progress = "quiet" // the warning shows whatever the progress mode
	missing := reg.Host + "/cache/never-pushed:buildcache"
	opt.CacheFrom = []string{missing}
	rep, err := runOpts(context.Background(), testInput(t), opt)
	require.NoError(t, err, errOut.String())
	assert.Contains(t, errOut.String(), "warning: cache import from "+missing+" failed, building without it")
	t.Logf("warning: %s", grepLine(errOut.String(), "warning: cache import"))
	assert.True(t, tagExists(t, opt.Image))
	assert.NotEmpty(t, rep.Outputs.IndexDigest)
}

// A cache export the registry refuses fails the build before the tag,
// naming the fix; with ignore-error=true the build goes on and tags.
func TestCacheExportRefused(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	proxy := imagetest.NewFaultProxy(reg.Host, -1, 403, false)
	defer proxy.Close()
	cacheRef := proxy.Host + "/cache/epp:buildcache"

	t.Run("fails before tagging", func(t *testing.T) {
		opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-cache-refused")
		opt.CacheTo = []string{"type=registry,ref=" + cacheRef + ",mode=max"}
		_, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
		require.Error(t, err)
		var ce *image.CacheExportError
		require.ErrorAs(t, err, &ce, "stderr:\n%s", errOut.String())
		t.Logf("error: %v", err)
		assert.Contains(t, err.Error(), "ignore-error=true")
		assert.Contains(t, err.Error(), "cache export to registry "+cacheRef)
		assert.Contains(t, ce.Step, "cache")
		assert.Positive(t, proxy.Failed(), "the export reached the refusing registry")
		assert.False(t, tagExists(t, opt.Image), "a failed cache export moves no tag")
	})
	t.Run("ignore-error=true builds and tags", func(t *testing.T) {
		opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-cache-ignored")
		opt.CacheTo = []string{"type=registry,ref=" + cacheRef + ",mode=max,ignore-error=true"}
		before := proxy.Failed()
		_, err := runOpts(context.Background(), testInput(t), fastRetry(opt))
		require.NoError(t, err, errOut.String())
		assert.Greater(t, proxy.Failed(), before, "the export was tried")
		assert.Contains(t, errOut.String(), "warning: exporting cache to registry failed")
		assert.True(t, tagExists(t, opt.Image))
	})
}

// A registry cache exported by one daemon is imported by another with an
// empty cache, and both give the same index digest; a local cache folder
// is written too.
func TestCacheRegistryExportThenImportOnAnotherDaemon(t *testing.T) {
	requireDaemons(t)
	requireToolchains(t)
	node2 := secondNode(t)
	ctx := context.Background()
	cacheRef := reg.Host + "/cache/epp-roundtrip:buildcache"
	localDir := filepath.Join(t.TempDir(), "local-cache")

	opt, _, errOut := testOptions(t, reg.Host, "dynamo/epp-cache-export")
	opt.CacheTo = []string{"type=registry,ref=" + cacheRef + ",mode=max", "type=local,dest=" + localDir}
	first, err := runOpts(ctx, testInput(t), opt)
	require.NoError(t, err, errOut.String())
	r, err := name.ParseReference(cacheRef, name.Insecure)
	require.NoError(t, err)
	_, err = remote.Head(r)
	require.NoError(t, err, "the registry cache was pushed to %s", cacheRef)
	assert.FileExists(t, filepath.Join(localDir, "index.json"))

	opt2, _, errOut2 := testOptions(t, reg.Host, "dynamo/epp-cache-import")
	opt2.BuildKit = []string{node2.Addr}
	opt2.CacheFrom = []string{"type=registry,ref=" + cacheRef}
	second, err := runOpts(ctx, testInput(t), opt2)
	require.NoError(t, err, errOut2.String())
	assert.Contains(t, errOut2.String(), "importing cache manifest from "+cacheRef)
	assert.NotContains(t, errOut2.String(), "warning: cache import")
	// The platform images are reproducible; the index is not, because
	// BuildKit's provenance records the build's start and invocation ID.
	assert.Equal(t, platformDigests(first), platformDigests(second), "the same inputs give the same images on either daemon")
}

// platformDigests lists each platform's image digest, in order.
func platformDigests(rep *report.Report) []string {
	var out []string
	for _, img := range rep.Outputs.Images {
		out = append(out, img.Platform+" "+img.Digest)
	}
	return out
}

// grepLine is the first line of text that contains s.
func grepLine(text, s string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
