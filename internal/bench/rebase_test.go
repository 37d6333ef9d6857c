//go:build e2e

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// backportFixture is a GAIE-sized upstream (gitfixture.Large, tag v1.0.0)
// with a later pin v1.1.0, and a release line of seven patches on v1.0.0
// made by the git CLI, as patches/v1.0.0 and as branch "series" of the
// upstream. v1.1.0 inserts lines at the top of every file the series
// changes (its patches apply at an offset) and changes a line two above
// patch 0003's change (it applies only by a three-way merge, for both
// git am -3 and epp-build). fix is a commit on v1.0.0 to pick.
//
// Both sides read the upstream repository itself: epp-build through
// --upstream (a local mirror), git as its own repository.
type backportFixture struct {
	mirror     string
	patches    string
	patchFiles []string
	fix        string
}

// seriesLength is the size of the rebased line, as v1.4.2's.
const seriesLength = 7

func newBackportFixture(b *testing.B) *backportFixture {
	b.Helper()
	repo := gitfixture.Large(b)
	f := &backportFixture{mirror: repo.Dir, patches: filepath.Join(b.TempDir(), "patches")}
	v1 := repo.RevParse(b, gitfixture.LargeTag+"^{commit}")

	// The series: each patch changes two files in their middle and adds
	// one, as a line's patches do.
	repo.Git(b, "checkout", "-q", "-b", "series", v1)
	touched := map[string]bool{}
	merged := ""
	for i := range seriesLength {
		files := map[string]string{fmt.Sprintf("pkg/dynamo/part%d.go", i): fmt.Sprintf("package dynamo\n\n// Part%d is added by patch %d.\nconst Part%d = %d\n", i, i+1, i, i)}
		for j := range 2 {
			name := largeFile(7*i + j)
			files[name] = withLine(b, repo.Dir, name, 0, fmt.Sprintf("// patch %d\n", i+1))
			touched[name] = true
			if i == 2 && j == 0 {
				merged = name
			}
		}
		repo.Commit(b, fmt.Sprintf("Patch %d of the line\n\nReason: bench", i+1), files)
	}
	if err := os.MkdirAll(filepath.Join(f.patches, gitfixture.LargeTag), 0o755); err != nil {
		b.Fatal(err)
	}
	version := filepath.Join(f.patches, gitfixture.LargeTag)
	repo.Git(b, "format-patch", "-q", "--zero-commit", "--keep-subject", "--no-stat", "--no-signature", "--full-index", "-o", version, v1+"..series")
	names, _ := filepath.Glob(filepath.Join(version, "*.patch"))
	if len(names) != seriesLength {
		b.Fatalf("format-patch wrote %d patches", len(names))
	}
	var list strings.Builder
	for _, n := range names {
		list.WriteString("  - " + filepath.Base(n) + "\n")
	}
	// The recipe names a repository nobody serves: --upstream is the only
	// way to the upstream, as with an offline mirror.
	recipe := fmt.Sprintf("upstream:\n  repository: https://example.invalid/gaie.git\n  ref: %s\n  commit: %s\npatches:\n%s", gitfixture.LargeTag, v1, list.String())
	if err := os.WriteFile(filepath.Join(version, "recipe.yaml"), []byte(recipe), 0o644); err != nil {
		b.Fatal(err)
	}
	// Written again as epp-build exports a series, the form pick checks
	// an inherited series against.
	work, cache := filepath.Join(b.TempDir(), "work"), filepath.Join(b.TempDir(), "cache")
	f.epp(b, cache, "apply", "--version", gitfixture.LargeTag, "--out", work)
	measured(b, nil, binary, "export", "--dir", work, "--to", version)
	f.patchFiles, _ = filepath.Glob(filepath.Join(version, "*.patch"))

	// v1.1.0 moves every patch and edits near 0003's change.
	repo.Git(b, "checkout", "-q", "-b", "next", v1)
	next := map[string]string{}
	for name := range touched {
		next[name] = "// upstream v1.1.0 header\n// one more line\n" + readFile(b, filepath.Join(repo.Dir, name))
	}
	next[merged] = withLine(b, repo.Dir, merged, -2, "// upstream v1.1.0 changed this\n")
	for i := range 40 { // and changes elsewhere, as a release does
		name := largeFile(500 + i)
		next[name] = readFile(b, filepath.Join(repo.Dir, name)) + "// v1.1.0\n"
	}
	repo.Tag(b, "v1.1.0", repo.Commit(b, "v1.1.0", next), true)

	// The fix to pick: on v1.0.0, a file the series does not touch.
	repo.Git(b, "checkout", "-q", "-b", "fix", v1)
	name := largeFile(900)
	f.fix = repo.Commit(b, "Fix a stuck stream", map[string]string{name: withLine(b, repo.Dir, name, 0, "// the fix\n")})
	repo.Git(b, "checkout", "-q", "--detach")
	return f
}

// largeFile is the path of gitfixture.Large's text file i.
func largeFile(i int) string { return fmt.Sprintf("pkg/area%02d/sub%d/file%04d.go", i%37, i%5, i) }

// withLine is dir's file name with line inserted at its middle line (plus
// at: 0 inserts before the middle line, -2 replaces the line two above).
func withLine(b *testing.B, dir, name string, at int, line string) string {
	b.Helper()
	lines := strings.SplitAfter(readFile(b, filepath.Join(dir, name)), "\n")
	mid := len(lines) / 2
	if at == 0 {
		lines[mid] = line + lines[mid]
	} else {
		lines[mid+at] = line
	}
	return strings.Join(lines, "")
}

func readFile(b *testing.B, name string) string {
	b.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// epp runs epp-build on f's versions with the upstream from the mirror
// and the cache in cache.
func (f *backportFixture) epp(b *testing.B, cache string, args ...string) (wall, cpu time.Duration) {
	b.Helper()
	args = append([]string{"--patches", f.patches}, args...)
	args = append(args, "--upstream", f.mirror, "--source", "git", "--cache-dir", cache, "--quiet")
	wall, cpu, _ = measured(b, nil, binary, args...)
	return wall, cpu
}

// rebase is the rebase of the line onto v1.1.0 as version as, in dir.
func (f *backportFixture) rebase(b *testing.B, cache, as, dir string) (time.Duration, time.Duration) {
	return f.epp(b, cache, "rebase", "--version", gitfixture.LargeTag, "--onto", "v1.1.0", "--as", as, "--dir", dir, "--no-verify")
}

// pick is the pick of the fix into a new version as extending the line.
func (f *backportFixture) pick(b *testing.B, cache, as, dir string) (time.Duration, time.Duration) {
	return f.epp(b, cache, "pick", "--version", as, "--extends", gitfixture.LargeTag, "--from", f.mirror,
		"--reason", "bench", "--upstream-link", "https://example.invalid/pr/1", "--dir", dir, f.fix)
}

// gitWorktree is git's way to a new work tree at rev from the same
// repository: what epp-build's materializing stands for.
func (f *backportFixture) gitWorktree(b *testing.B, dir, rev string) (wall, cpu time.Duration) {
	wall, cpu, _ = measured(b, nil, "git", "-C", f.mirror, "worktree", "add", "-q", "--detach", dir, rev)
	return wall, cpu
}

// removeWorktree drops a work tree gitWorktree made (not timed).
func (f *backportFixture) removeWorktree(b *testing.B, dir string) {
	gitfixture.Git(b, f.mirror, "worktree", "remove", "--force", dir)
}

// sides sums the wall and CPU times (user + system: what a loaded
// machine inflates less) of epp-build, of git's whole way and of git's
// last step alone.
type sides struct {
	ours, oursCPU, git, gitCPU, step, stepCPU time.Duration
}

func (s *sides) report(b *testing.B, step string) {
	report(b, s.ours, s.git, "epp-build", "git")
	n := float64(b.N)
	b.ReportMetric(float64(s.oursCPU.Milliseconds())/n, "epp-build-cpu-ms/op")
	b.ReportMetric(float64(s.gitCPU.Milliseconds())/n, "git-cpu-ms/op")
	b.ReportMetric(s.oursCPU.Seconds()/s.gitCPU.Seconds(), "epp/git-cpu-ratio")
	b.ReportMetric(float64(s.step.Milliseconds())/n, step+"-ms/op")
	b.ReportMetric(s.ours.Seconds()/s.step.Seconds(), "epp/"+step+"-ratio")
	b.ReportMetric(s.oursCPU.Seconds()/s.stepCPU.Seconds(), "epp/"+step+"-cpu-ratio")
}

// compare runs epp-build's way (ours, making the version named by
// version(i) in a new folder) and git's (a work tree at rev, then the git
// command step in it) b.N times each, after one run of ours that fills
// the cache, and reports both.
func (f *backportFixture) compare(b *testing.B, ours func(b *testing.B, cache, version, dir string) (time.Duration, time.Duration), version func(i int) string, rev string, step []string, stepName string) {
	cache := filepath.Join(b.TempDir(), "cache")
	ours(b, cache, "vprime", filepath.Join(b.TempDir(), "prime"))
	var s sides
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		d, c := ours(b, cache, version(i), filepath.Join(tmp, "epp"))
		s.ours, s.oursCPU = s.ours+d, s.oursCPU+c
		wt := filepath.Join(tmp, "git")
		dw, cw := f.gitWorktree(b, wt, rev)
		ds, cs, _ := measured(b, nil, "git", append([]string{"-C", wt}, step...)...)
		s.git, s.gitCPU, s.step, s.stepCPU = s.git+dw+ds, s.gitCPU+cw+cs, s.step+ds, s.stepCPU+cs
		f.removeWorktree(b, wt)
	}
	s.report(b, stepName)
}

// BenchmarkRebase: a seven-patch line rebased onto the next pin (every
// patch at an offset, one by three-way merge), with the upstream in the
// cache, against git worktree add of the pin + git am -3 of the same
// files, on the same repository. Goal: epp/git-ratio <= 2. The git-am
// metrics are git am -3 alone, on a work tree made beforehand. The
// type-check is left out (--no-verify): git does none, and the fixture's
// files are not Go.
func BenchmarkRebase(b *testing.B) {
	f := newBackportFixture(b)
	f.compare(b, f.rebase, func(i int) string { return fmt.Sprintf("v2.%d", i) },
		"v1.1.0", append([]string{"am", "-3", "-q"}, f.patchFiles...), "git-am")
}

// BenchmarkPick: one commit picked from the upstream repository into a
// new version extending the seven-patch line (its series is applied, the
// pick goes on top and the version is written), with the upstream in the
// cache, against git worktree add of the line's branch + git
// cherry-pick, on the same repository. Goal: epp/git-ratio <= 2. The
// git-cherry-pick metrics are the cherry-pick alone.
func BenchmarkPick(b *testing.B) {
	f := newBackportFixture(b)
	f.compare(b, f.pick, func(i int) string { return fmt.Sprintf("v1.0.%d", i+1) },
		"series", []string{"cherry-pick", f.fix}, "git-cherry-pick")
}
