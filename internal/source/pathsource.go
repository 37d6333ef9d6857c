package source

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// fetchPath takes the pinned commit from a local repository (work tree or
// bare), copying only the commit, its tree and blobs into the cache.
func fetchPath(ctx context.Context, c *cache, req Request) (*Tree, error) {
	dir := strings.TrimPrefix(req.repository(), "file://")
	if dir == "" {
		return nil, errors.New("source path: no local repository folder given")
	}
	want := req.Pin.Commit
	return c.get(ctx, "git-"+want, expectation{commit: want}, func(ctx context.Context, tmp string) (*entryMeta, error) {
		repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
		if err != nil {
			return nil, fmt.Errorf("open local repository %s: %w", dir, err)
		}
		got, err := resolveLocal(repo, req.Pin.Ref)
		if err != nil {
			return nil, fmt.Errorf("local repository %s: %w", dir, err)
		}
		if got.String() != want {
			return nil, &MismatchError{Ref: req.Pin.Ref, Want: want, Got: got.String(), Repository: dir}
		}
		m := &entryMeta{Via: Path, Commit: want, Origin: dir, Ref: req.Pin.Ref}
		if err := buildFromObjects(ctx, tmp, repo.Storer, got, m); err != nil {
			return nil, err
		}
		return m, nil
	})
}

// resolveLocal resolves a tag, full ref name or commit hash to a commit.
func resolveLocal(repo *git.Repository, ref string) (plumbing.Hash, error) {
	var start plumbing.Hash
	switch {
	case fullHash.MatchString(ref):
		start = plumbing.NewHash(ref)
	default:
		name := plumbing.NewTagReferenceName(ref)
		if strings.HasPrefix(ref, "refs/") {
			name = plumbing.ReferenceName(ref)
		}
		r, err := repo.Reference(name, true)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("ref %s not found (check upstream.ref): %w", ref, err)
		}
		start = r.Hash()
	}
	commit, err := peel(repo.Storer, start)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("ref %s: %w", ref, err)
	}
	return commit, nil
}
