//go:build e2e

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// BenchmarkColdCommitPin: apply of a recipe pinned by commit (no tag),
// with an empty cache and no patches, against the git CLI fetching that
// commit alone (`git fetch --depth 1 <url> <sha>` into an empty
// repository) and checking it out, from the same loopback server. Goal:
// epp/git-ratio <= 1 (no slower than git); epp/git-fetch-ratio compares
// with the fetch alone, without git's checkout.
func BenchmarkColdCommitPin(b *testing.B) {
	repo := gitfixture.Large(b)
	repo.AllowFetchBySHA(b)
	url := repo.HTTPURL(gitfixture.ServeHTTP(b, filepath.Dir(repo.Dir)))
	commit := repo.RevParse(b, gitfixture.LargeTag+"^{commit}")
	dir := filepath.Join(b.TempDir(), "v1.0.0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	text := fmt.Sprintf("upstream:\n  repository: %s\n  ref: %s\n  commit: %s\npatches: []\n", url, commit, commit)
	if err := os.WriteFile(filepath.Join(dir, "recipe.yaml"), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	var ours, fetchOnly, withCheckout time.Duration
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		d, _ := timed(b, []string{"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache")}, binary,
			"apply", "--recipe", dir, "--out", filepath.Join(tmp, "epp"), "--source", "git", "--quiet")
		ours += d
		clone := filepath.Join(tmp, "git")
		gitfixture.Git(b, "", "init", "-q", clone)
		d, _ = timed(b, nil, "git", "-C", clone, "fetch", "-q", "--depth", "1", url, commit)
		fetchOnly += d
		withCheckout += d
		d, _ = timed(b, nil, "git", "-C", clone, "-c", "advice.detachedHead=false", "checkout", "-q", "FETCH_HEAD")
		withCheckout += d
	}
	report(b, ours, withCheckout, "epp-build", "git-fetch-checkout")
	n := float64(b.N)
	b.ReportMetric(float64(fetchOnly.Milliseconds())/n, "git-fetch-ms/op")
	b.ReportMetric(ours.Seconds()/fetchOnly.Seconds(), "epp/git-fetch-ratio")
}
