//go:build e2e

package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "epp-build-bench-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "epp-build")
	if out, err := exec.Command("go", "build", "-o", binary, "../../cmd/epp-build").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is a GAIE-sized upstream served over loopback HTTP with a
// series of patches made by the git CLI.
type fixture struct {
	url, commit string
	recipe      string
	patchFiles  []string
}

func newFixture(b *testing.B, patches int) *fixture {
	b.Helper()
	repo := gitfixture.Large(b)
	base := gitfixture.ServeHTTP(b, filepath.Dir(repo.Dir))
	f := &fixture{url: repo.HTTPURL(base), commit: repo.RevParse(b, gitfixture.LargeTag+"^{commit}")}

	// Commit the series in a scratch clone and format it.
	work := filepath.Join(b.TempDir(), "work")
	gitfixture.Git(b, "", "clone", "-q", repo.Dir, work)
	for i := 0; i < patches; i++ {
		name := filepath.Join(work, fmt.Sprintf("pkg/area%02d/sub%d/file%04d.go", i%37, i%5, i%986))
		data, err := os.ReadFile(name)
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		lines[len(lines)/2] = fmt.Sprintf("// change %d\n", i) + lines[len(lines)/2]
		if err := os.WriteFile(name, []byte(strings.Join(lines, "")), 0o644); err != nil {
			b.Fatal(err)
		}
		gitfixture.Git(b, work, "commit", "-q", "-am", fmt.Sprintf("Change %d", i))
	}
	f.recipe = filepath.Join(b.TempDir(), "v1.0.0")
	if err := os.MkdirAll(f.recipe, 0o755); err != nil {
		b.Fatal(err)
	}
	gitfixture.Git(b, work, "format-patch", "-q", "--zero-commit", "--no-signature", "--full-index", "-o", f.recipe, f.commit+"..HEAD")
	names, _ := filepath.Glob(filepath.Join(f.recipe, "*.patch"))
	f.patchFiles = names
	var list strings.Builder
	for _, n := range names {
		list.WriteString("  - " + filepath.Base(n) + "\n")
	}
	if len(names) == 0 {
		list.WriteString("  []\n")
	}
	recipe := fmt.Sprintf("upstream:\n  repository: %s\n  ref: %s\n  commit: %s\npatches:\n%s", f.url, gitfixture.LargeTag, f.commit, list.String())
	if err := os.WriteFile(filepath.Join(f.recipe, "recipe.yaml"), []byte(recipe), 0o644); err != nil {
		b.Fatal(err)
	}
	return f
}

// timed runs a command and returns its wall time and peak RSS in MB.
func timed(b *testing.B, env []string, name string, args ...string) (time.Duration, float64) {
	b.Helper()
	d, _, rss := measured(b, env, name, args...)
	return d, rss
}

// measured runs a command and returns its wall time, its CPU time (user +
// system: what a loaded machine does not inflate) and peak RSS in MB.
func measured(b *testing.B, env []string, name string, args ...string) (wall, cpu time.Duration, rss float64) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(gitfixture.Env(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall = time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	rss = float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	return wall, cpu, rss
}

// gitRun is one run of the git CLI way: wall and CPU time, peak RSS in MB.
type gitRun struct {
	wall, cpu time.Duration
	rss       float64
}

// gitPath is the git CLI way of what apply does: a shallow clone of the
// tag, then git am of the series (one commit per patch, as apply makes).
func gitPath(b *testing.B, f *fixture, dst string) gitRun {
	var r gitRun
	r.wall, r.cpu, r.rss = measured(b, nil, "git", "clone", "-q", "--depth", "1", "--branch", gitfixture.LargeTag, f.url, dst)
	if len(f.patchFiles) > 0 {
		w, c, rss := measured(b, nil, "git", append([]string{"-C", dst, "am", "-q"}, f.patchFiles...)...)
		r.wall, r.cpu, r.rss = r.wall+w, r.cpu+c, max(r.rss, rss)
	}
	return r
}

func eppApply(b *testing.B, f *fixture, cache, dst string) (time.Duration, float64) {
	return timed(b, []string{"XDG_CACHE_HOME=" + cache}, binary, apply(f, dst)...)
}

// apply is the command line of a quiet apply of f's recipe into dst.
func apply(f *fixture, dst string) []string {
	return []string{"apply", "--recipe", f.recipe, "--out", dst, "--source", "git", "--quiet"}
}

func report(b *testing.B, ours, theirs time.Duration, oursName, theirsName string) {
	n := float64(b.N)
	b.ReportMetric(float64(ours.Milliseconds())/n, oursName+"-ms/op")
	b.ReportMetric(float64(theirs.Milliseconds())/n, theirsName+"-ms/op")
	b.ReportMetric(ours.Seconds()/theirs.Seconds(), "epp/git-ratio")
}

// BenchmarkColdApply: clone + a 5-patch series with an empty cache, against
// git clone --depth 1 --branch + git am. Goal: ratio <= 1.2.
//
// Both sides fetch from the same loopback server, whose work (git
// http-backend packing the tag) counts in both wall times but in neither
// CPU time; the CPU ratio is what a loaded machine inflates less.
func BenchmarkColdApply(b *testing.B) {
	f := newFixture(b, 5)
	var ours, oursCPU time.Duration
	var theirs gitRun
	var peak float64
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		d, c, rss := measured(b, []string{"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache")}, binary, apply(f, filepath.Join(tmp, "epp"))...)
		ours, oursCPU = ours+d, oursCPU+c
		peak = max(peak, rss)
		g := gitPath(b, f, filepath.Join(tmp, "git"))
		theirs.wall, theirs.cpu, theirs.rss = theirs.wall+g.wall, theirs.cpu+g.cpu, max(theirs.rss, g.rss)
	}
	report(b, ours, theirs.wall, "epp-build", "git")
	n := float64(b.N)
	b.ReportMetric(float64(oursCPU.Milliseconds())/n, "epp-build-cpu-ms/op")
	b.ReportMetric(float64(theirs.cpu.Milliseconds())/n, "git-cpu-ms/op")
	b.ReportMetric(oursCPU.Seconds()/theirs.cpu.Seconds(), "epp/git-cpu-ratio")
	b.ReportMetric(peak, "epp-peak-MB")
	b.ReportMetric(theirs.rss, "git-peak-MB")
}

// BenchmarkWarmApply: the same apply with the upstream in the cache, against
// the git CLI path. Goal: git/epp >= 10 (ratio <= 0.1).
//
// A warm apply has to create every file of the tree, so it also reports
// the floor the file system sets: `cp -r` of the resulting work tree
// (without .git) to a new folder, and how far above that floor epp-build
// is.
func BenchmarkWarmApply(b *testing.B) {
	f := newFixture(b, 5)
	cache := filepath.Join(b.TempDir(), "cache")
	prime := filepath.Join(b.TempDir(), "prime")
	eppApply(b, f, cache, prime)
	// The floor copies the work tree apply made, without its .git.
	tree := filepath.Join(b.TempDir(), "tree")
	gitfixture.Git(b, "", "-C", prime, "checkout-index", "--all", "--prefix", tree+"/")
	var ours, theirs, floor time.Duration
	var peak float64
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		d, rss := eppApply(b, f, cache, filepath.Join(tmp, "epp"))
		ours += d
		peak = max(peak, rss)
		theirs += gitPath(b, f, filepath.Join(tmp, "git")).wall
		dc, _ := timed(b, nil, "cp", "-r", tree, filepath.Join(tmp, "cp"))
		floor += dc
	}
	report(b, ours, theirs, "epp-build", "git")
	b.ReportMetric(theirs.Seconds()/ours.Seconds(), "speedup-x")
	b.ReportMetric(float64(floor.Milliseconds())/float64(b.N), "cp-r-floor-ms/op")
	b.ReportMetric(ours.Seconds()/floor.Seconds(), "epp/floor-ratio")
	b.ReportMetric(theirs.Seconds()/floor.Seconds(), "git/floor-ratio")
	b.ReportMetric(peak, "epp-peak-MB")
}

// BenchmarkSeries500: a 500-patch series applied from the cache, against
// git am of the same files on a clone. Goal: git/epp >= 10.
func BenchmarkSeries500(b *testing.B) {
	f := newFixture(b, 500)
	cache := filepath.Join(b.TempDir(), "cache")
	eppApply(b, f, cache, filepath.Join(b.TempDir(), "prime"))
	var ours, theirs time.Duration
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		d, _ := eppApply(b, f, cache, filepath.Join(tmp, "epp"))
		ours += d
		clone := filepath.Join(tmp, "git")
		gitfixture.Git(b, "", "clone", "-q", "--depth", "1", "--branch", gitfixture.LargeTag, f.url, clone)
		da, _ := timed(b, nil, "git", append([]string{"-C", clone, "am", "-q"}, f.patchFiles...)...)
		theirs += da
	}
	report(b, ours, theirs, "epp-build", "git-am")
	b.ReportMetric(theirs.Seconds()/ours.Seconds(), "speedup-x")
}

// BenchmarkReapply: the edit loop. One patch of a 5-patch series changes
// and apply runs again on the tree it made, against a fresh warm apply of
// the same series into a new folder. Goal: reapply/fresh <= 0.1.
func BenchmarkReapply(b *testing.B) {
	f := newFixture(b, 5)
	cache := filepath.Join(b.TempDir(), "cache")
	out := filepath.Join(b.TempDir(), "out")
	eppApply(b, f, cache, out)
	first := f.patchFiles[0]
	original, err := os.ReadFile(first)
	if err != nil {
		b.Fatal(err)
	}
	var ours, fresh, oursCPU, freshCPU time.Duration
	for i := 0; i < b.N; i++ {
		edited := strings.Replace(string(original), "+// change 0\n", fmt.Sprintf("+// change 0, edit %d\n", i), 1)
		if edited == string(original) {
			b.Fatal("the first patch has no line to edit")
		}
		if err := os.WriteFile(first, []byte(edited), 0o644); err != nil {
			b.Fatal(err)
		}
		d, c, _ := measured(b, []string{"XDG_CACHE_HOME=" + cache}, binary, apply(f, out)...)
		ours, oursCPU = ours+d, oursCPU+c
		d, c, _ = measured(b, []string{"XDG_CACHE_HOME=" + cache}, binary, apply(f, filepath.Join(b.TempDir(), "fresh"))...)
		fresh, freshCPU = fresh+d, freshCPU+c
	}
	n := float64(b.N)
	b.ReportMetric(float64(ours.Milliseconds())/n, "reapply-ms/op")
	b.ReportMetric(float64(fresh.Milliseconds())/n, "fresh-warm-ms/op")
	b.ReportMetric(ours.Seconds()/fresh.Seconds(), "reapply/fresh-ratio")
	b.ReportMetric(oursCPU.Seconds()/freshCPU.Seconds(), "reapply/fresh-cpu-ratio")
}
