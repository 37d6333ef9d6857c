package patchset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// BenchmarkApplySeries applies a 500-patch series to a GAIE-sized tree in
// process (the work `epp-build apply` does after the fetch).
func BenchmarkApplySeries(b *testing.B) {
	repo := gitfixture.Large(b)
	work := filepath.Join(b.TempDir(), "work")
	gitfixture.Git(b, "", "clone", "-q", repo.Dir, work)
	base := gitfixture.Git(b, work, "rev-parse", "HEAD")
	for i := 0; i < 500; i++ {
		name := filepath.Join(work, fmt.Sprintf("pkg/area%02d/sub%d/file%04d.go", i%37, i%5, i%986))
		data, _ := os.ReadFile(name)
		lines := strings.SplitAfter(string(data), "\n")
		lines[len(lines)/2] = fmt.Sprintf("// change %d\n", i) + lines[len(lines)/2]
		os.WriteFile(name, []byte(strings.Join(lines, "")), 0o644)
		gitfixture.Git(b, work, "commit", "-q", "-am", fmt.Sprintf("Change %d", i))
	}
	out := b.TempDir()
	gitfixture.Git(b, work, "format-patch", "-q", "--full-index", "-o", out, base+"..HEAD")
	names, _ := filepath.Glob(filepath.Join(out, "*.patch"))
	var patches []*Patch
	for _, n := range names {
		ps, err := ParseFile(n, filepath.Base(n))
		if err != nil {
			b.Fatal(err)
		}
		patches = append(patches, ps...)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dst := filepath.Join(b.TempDir(), "dst")
		gitfixture.Git(b, "", "clone", "-q", repo.Dir, dst)
		b.StartTimer()
		if _, err := applyPatchesToRepo(context.Background(), dst, patches, Options{Branch: "b"}); err != nil {
			b.Fatal(err)
		}
	}
}
