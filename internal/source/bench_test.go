package source

import (
	"context"
	"os"
	"path/filepath"
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
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tree, err := Fetch(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		dst := filepath.Join(work, "w")
		if err := tree.Materialize(context.Background(), dst); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		os.RemoveAll(dst)
		b.StartTimer()
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
