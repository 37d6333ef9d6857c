//go:build integration

package pipeline

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/buildkit/client"
	"github.com/stretchr/testify/require"
)

// BenchmarkWarmVsCold runs the whole build (C API, compile, solve, push,
// verify, smoke, tag) once cold (empty C API cache, empty Go build cache,
// pruned BuildKit cache) and once warm with unchanged inputs, and reports
// the times and the cold/warm ratio. The warm run must not invoke cargo.
// Run with -benchtime=1x.
func BenchmarkWarmVsCold(b *testing.B) {
	if daemonsDown != "" {
		b.Skip(daemonsDown)
	}
	ctx := context.Background()
	var cold, warm time.Duration
	warmStages := map[string]float64{}
	for b.Loop() {
		c, err := client.New(ctx, bk.Addr)
		require.NoError(b, err)
		require.NoError(b, c.Prune(ctx, nil, client.PruneAll))
		c.Close()

		opt, _, _ := testOptions(b, reg.Host, "bench/epp")
		opt.CacheDir = b.TempDir()
		opt.Progress = "quiet"
		opt.Stdout, opt.Stderr = io.Discard, io.Discard
		opt.Env = append(opt.Env, "GOCACHE="+filepath.Join(b.TempDir(), "gocache"))
		in := testInput(b)

		start := time.Now()
		_, err = runOpts(ctx, in, opt)
		require.NoError(b, err)
		cold += time.Since(start)

		start = time.Now()
		rep, err := runOpts(ctx, in, opt)
		require.NoError(b, err)
		warm += time.Since(start)
		for _, img := range rep.Outputs.Images {
			require.True(b, img.CAPICached, "warm run invoked cargo for %s", img.Platform)
		}
		for _, st := range rep.Timings {
			warmStages[st.Stage] += st.Seconds
		}
	}
	b.ReportMetric(cold.Seconds()/float64(b.N), "cold-s")
	b.ReportMetric(warm.Seconds()/float64(b.N), "warm-s")
	b.ReportMetric(cold.Seconds()/warm.Seconds(), "cold/warm")
	for stage, secs := range warmStages {
		b.ReportMetric(secs/float64(b.N), "warm-"+stage+"-s")
	}
}

// BenchmarkContainerModeWarmVsCold is BenchmarkWarmVsCold for the container
// compile mode: cold is a pruned BuildKit cache (the builder image is pulled
// again from the test registry, cargo and go run in the solve), warm the
// same inputs again. Run with -benchtime=1x.
func BenchmarkContainerModeWarmVsCold(b *testing.B) {
	if daemonsDown != "" {
		b.Skip(daemonsDown)
	}
	builder := builderImage(b)
	ctx := context.Background()
	var cold, warm, coldCAPI time.Duration
	for b.Loop() {
		c, err := client.New(ctx, bk.Addr)
		require.NoError(b, err)
		require.NoError(b, c.Prune(ctx, nil, client.PruneAll))
		c.Close()

		opt, _, _ := testOptions(b, reg.Host, "bench/epp-container")
		opt.Compile, opt.BuilderImage = CompileContainer, builder
		opt.CacheDir = b.TempDir()
		opt.Progress = "quiet"
		opt.Stdout, opt.Stderr = io.Discard, io.Discard
		in := testInput(b)

		start := time.Now()
		rep, err := runOpts(ctx, in, opt)
		require.NoError(b, err)
		cold += time.Since(start)
		for _, st := range rep.Timings {
			if st.Stage == "capi" {
				coldCAPI += time.Duration(st.Seconds * float64(time.Second))
			}
		}

		start = time.Now()
		_, err = runOpts(ctx, in, opt)
		require.NoError(b, err)
		warm += time.Since(start)
	}
	b.ReportMetric(cold.Seconds()/float64(b.N), "cold-s")
	b.ReportMetric(coldCAPI.Seconds()/float64(b.N), "cold-capi-s")
	b.ReportMetric(warm.Seconds()/float64(b.N), "warm-s")
	b.ReportMetric(cold.Seconds()/warm.Seconds(), "cold/warm")
}
