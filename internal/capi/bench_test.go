package capi

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/platform"
)

// BenchmarkBothArchesConcurrentVsSequential builds the test crate cold for
// amd64 and arm64, once concurrently and once one after the other, and
// reports both times and their ratio. Run with -benchtime=1x.
func BenchmarkBothArchesConcurrentVsSequential(b *testing.B) {
	ts, err := platform.Parse([]string{"linux/amd64", "linux/arm64"})
	require.NoError(b, err)
	if _, err := FindToolchain(context.Background(), os.Environ(), ts); err != nil {
		b.Skip("toolchains for both arches: " + err.Error())
	}
	src := filepath.Join(b.TempDir(), "crate")
	require.NoError(b, os.CopyFS(src, os.DirFS(filepath.Join("..", "..", "testdata", "image", "capi-crate"))))
	cold := func(sequential bool) time.Duration {
		start := time.Now()
		res, err := Build(context.Background(), Options{SrcDir: src, Crate: testCrate, Library: testLibrary,
			Platforms: ts, CacheDir: b.TempDir(), Env: offlineEnv(), Sequential: sequential})
		require.NoError(b, err)
		for _, a := range res.Artifacts {
			require.False(b, a.CacheHit)
		}
		return time.Since(start)
	}
	var seq, conc time.Duration
	for b.Loop() {
		seq += cold(true)
		conc += cold(false)
	}
	n := float64(b.N)
	b.ReportMetric(seq.Seconds()/n, "sequential-s")
	b.ReportMetric(conc.Seconds()/n, "concurrent-s")
	b.ReportMetric(seq.Seconds()/conc.Seconds(), "speedup")
}
