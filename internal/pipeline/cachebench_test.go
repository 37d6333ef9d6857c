//go:build integration

package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/image/imagetest"
	"github.com/epp-build/epp-build/internal/report"
)

// BenchmarkCache measures BuildKit's build cache, side by side:
//
//   - cold: a fresh buildkitd (empty state), exporting a registry cache
//     (--cache-to type=registry,mode=max);
//   - warm: the same inputs again on the same daemon;
//   - registry-warm: another fresh buildkitd importing that registry cache
//     (--cache-from), as a new CI runner would.
//
// The C API and the Go build cache on this machine are warmed first, so
// the three runs differ only in BuildKit's cache. The compile mode is
// container when the Debian base of the builder image exists (the Go compile then
// runs inside the solve), host otherwise; the table says which. The three
// platform image digests must be equal (the index is not reproducible:
// BuildKit's provenance records the build's start). Run with -benchtime 1x.
func BenchmarkCache(b *testing.B) {
	if daemonsDown != "" {
		b.Skip(daemonsDown)
	}
	ctx := context.Background()
	mode := CompileHost
	builder := ""
	if _, err := os.Stat(imagetest.BaseTarball("linux/arm64")); err == nil || os.Getenv("EPP_BUILD_BUILDER_IMAGE") != "" {
		mode, builder = CompileContainer, builderImage(b)
	}
	options := func(addr, repo string) Options {
		opt, _, _ := testOptions(b, reg.Host, repo)
		opt.BuildKit = []string{addr}
		opt.Compile, opt.BuilderImage = mode, builder
		opt.Progress = "quiet"
		opt.Stdout, opt.Stderr = io.Discard, io.Discard
		return opt
	}
	in := testInput(b)
	// Warm what is not BuildKit's: the C API cache and the Go build cache.
	_, err := runOpts(ctx, in, options(bk.Addr, "bench/cache-prep"))
	require.NoError(b, err)

	type row struct {
		name        string
		total, solv time.Duration
		digest      string
	}
	var rows []row
	for b.Loop() {
		func() { // one iteration: its daemons are stopped at its end
			rows = rows[:0]
			cacheRef := fmt.Sprintf("%s/bench/cache:buildcache-%d", reg.Host, time.Now().UnixNano())
			a := freshDaemon(b, "ca")
			defer a.Stop()
			measure := func(name string, opt Options) {
				start := time.Now()
				rep, err := runOpts(ctx, in, opt)
				require.NoError(b, err, name)
				rows = append(rows, row{name, time.Since(start), stageTime(rep, "solve"), strings.Join(platformDigests(rep), ", ")})
			}
			cold := options(a.Addr, "bench/cache-cold")
			cold.CacheTo = []string{"type=registry,ref=" + cacheRef + ",mode=max"}
			measure("cold (fresh daemon, empty cache)", cold)

			warm := options(a.Addr, "bench/cache-warm")
			warm.CacheFrom, warm.CacheTo = []string{cacheRef}, cold.CacheTo
			measure("warm (same daemon)", warm)

			fresh := freshDaemon(b, "cb")
			defer fresh.Stop()
			regWarm := options(fresh.Addr, "bench/cache-regwarm")
			regWarm.CacheFrom = []string{"type=registry,ref=" + cacheRef}
			measure("registry-warm (fresh daemon, --cache-from)", regWarm)

			for _, r := range rows[1:] {
				require.Equal(b, rows[0].digest, r.digest, "%s gave other platform images than the cold build", r.name)
			}
		}()
	}
	b.StopTimer()
	fmt.Printf("\nBuildKit cache, compile mode %s (%s, %d CPUs):\n", mode, runtime.GOARCH, runtime.NumCPU())
	fmt.Printf("%-44s %10s %10s %12s %s\n", "run", "build", "solve", "cold/this", "platform image digests")
	for _, r := range rows {
		fmt.Printf("%-44s %9.1fs %9.1fs %11.1fx %s\n", r.name, r.total.Seconds(), r.solv.Seconds(),
			rows[0].total.Seconds()/r.total.Seconds(), r.digest)
	}
	fmt.Printf("platform digests equal: yes; goal: registry-warm >= 5x faster than cold\n")
	b.ReportMetric(rows[0].total.Seconds(), "cold-s")
	b.ReportMetric(rows[1].total.Seconds(), "warm-s")
	b.ReportMetric(rows[2].total.Seconds(), "regwarm-s")
	b.ReportMetric(rows[0].total.Seconds()/rows[2].total.Seconds(), "cold/regwarm")
}

// freshDaemon starts a buildkitd with an empty state folder; the caller
// stops it (by PID).
func freshDaemon(b *testing.B, name string) *imagetest.BuildKit {
	b.Helper()
	dir, err := os.MkdirTemp(testDir, name)
	require.NoError(b, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := imagetest.StartBuildKit(ctx, dir)
	require.NoError(b, err)
	return d
}

func stageTime(rep *report.Report, stage string) time.Duration {
	for _, st := range rep.Timings {
		if st.Stage == stage {
			return time.Duration(st.Seconds * float64(time.Second))
		}
	}
	return 0
}
