package source

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/epp-build/epp-build/internal/testutil/gitfixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFetchPath reads a local work tree and a bare clone, peeling tags, and
// copies only the pinned commit's objects.
func TestFetchPath(t *testing.T) {
	f := newFixture(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	f.repo.Git(t, "clone", "--quiet", "--bare", f.repo.Dir, bare)
	for name, dir := range map[string]string{"work tree": f.repo.Dir, "bare": bare} {
		for _, ref := range []string{"v1.0.0", "v1.0.0-light", f.rel} {
			t.Run(name+"/"+ref, func(t *testing.T) {
				tree := fetch(t, Request{Pin: pin("https://unused.invalid/up.git", ref, f.rel), Kind: Path, Upstream: dir, CacheDir: t.TempDir()})
				assert.Equal(t, Path, tree.Via)
				assert.Equal(t, f.rel, tree.BaseCommit)
				dst := filepath.Join(t.TempDir(), "work")
				require.NoError(t, tree.Materialize(context.Background(), dst))
				requireWorkTree(t, dst, f.rel, f.repo, f.rel)
				// Objects: the commit, its trees and blobs, nothing else.
				objects := strings.Split(gitfixture.Git(t, dst, "rev-list", "--objects", "--all"), "\n")
				trees := strings.Split(f.repo.Git(t, "ls-tree", "-r", "-t", f.rel), "\n")
				assert.Len(t, objects, len(uniqueObjects(trees))+2, "commit + root tree + entries")
				assert.Equal(t, "1", gitfixture.Git(t, dst, "rev-list", "--count", "HEAD"))
			})
		}
	}
}

func TestFetchPathMismatchAndMissing(t *testing.T) {
	f := newFixture(t)
	_, err := Fetch(context.Background(), Request{Pin: pin("", "v1.0.0", f.old), Kind: Path, Upstream: f.repo.Dir, CacheDir: t.TempDir()})
	var mm *MismatchError
	require.ErrorAs(t, err, &mm)
	assert.Equal(t, f.rel, mm.Got)
	assert.Equal(t, f.repo.Dir, mm.Repository)

	_, err = Fetch(context.Background(), Request{Pin: pin("", "v7", f.rel), Kind: Path, Upstream: f.repo.Dir, CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "v7")

	_, err = Fetch(context.Background(), Request{Pin: pin("", "v1.0.0", f.rel), Kind: Path, Upstream: t.TempDir(), CacheDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "open local repository")
}

// uniqueObjects counts distinct object ids in ls-tree lines.
func uniqueObjects(lines []string) map[string]bool {
	seen := map[string]bool{}
	for _, l := range lines {
		if fields := strings.Fields(l); len(fields) >= 3 {
			seen[fields[2]] = true
		}
	}
	return seen
}
