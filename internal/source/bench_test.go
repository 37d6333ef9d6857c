package source

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
)

// BenchmarkWarmMaterialize measures the warm path the apply command takes
// on every run: Fetch from a populated cache (verification included) plus
// Materialize of a GAIE-sized tree (about 1,000 files, 17 MB).
func BenchmarkWarmMaterialize(b *testing.B) {
	repo := gitfixture.Large(b)
	commit := repo.RevParse(b, gitfixture.LargeTag+"^{commit}")
	req := Request{Pin: pin(repo.FileURL(), gitfixture.LargeTag, commit), Kind: Git, CacheDir: b.TempDir(),
		Notice: func(format string, args ...any) { b.Fatalf("warm path printed a notice: "+format, args...) }}
	_, err := Fetch(context.Background(), req)
	require.NoError(b, err)
	work := b.TempDir()
	for i := 0; b.Loop(); i++ {
		tree, err := Fetch(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		dst := filepath.Join(work, strconv.Itoa(i))
		if err := tree.Materialize(context.Background(), dst); err != nil {
			b.Fatal(err)
		}
		// Deleting right after creating makes the next iteration wait on
		// the file system's journal; delete in batches, untimed.
		if i%10 == 9 {
			b.StopTimer()
			removeChildren(b, work)
			b.StartTimer()
		}
	}
}

// BenchmarkWarmFetch measures Fetch alone on a populated cache: metadata,
// commit object and tree rebuild checks.
func BenchmarkWarmFetch(b *testing.B) {
	repo := gitfixture.Large(b)
	commit := repo.RevParse(b, gitfixture.LargeTag+"^{commit}")
	req := Request{Pin: pin(repo.FileURL(), gitfixture.LargeTag, commit), Kind: Git, CacheDir: b.TempDir(),
		Notice: func(format string, args ...any) { b.Fatalf("warm path printed a notice: "+format, args...) }}
	_, err := Fetch(context.Background(), req)
	require.NoError(b, err)
	for b.Loop() {
		if _, err := Fetch(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGitCLICloneDepth1HTTP is the reference the warm path is compared
// with: `git clone --depth 1 --branch <tag>` of the same tree over loopback
// HTTP (git http-backend), as a shell script would do it.
func BenchmarkGitCLICloneDepth1HTTP(b *testing.B) {
	repo := gitfixture.Large(b)
	base := gitfixture.ServeHTTP(b, filepath.Dir(repo.Dir))
	work := b.TempDir()
	for i := 0; b.Loop(); i++ {
		dst := filepath.Join(work, strconv.Itoa(i))
		gitfixture.Git(b, "", "-c", "advice.detachedHead=false", "clone", "--quiet", "--depth", "1", "--branch", gitfixture.LargeTag, repo.HTTPURL(base), dst)
		if i%10 == 9 {
			b.StopTimer()
			removeChildren(b, work)
			b.StartTimer()
		}
	}
}

func removeChildren(b *testing.B, dir string) {
	des, err := os.ReadDir(dir)
	require.NoError(b, err)
	for _, d := range des {
		require.NoError(b, os.RemoveAll(filepath.Join(dir, d.Name())))
	}
}
