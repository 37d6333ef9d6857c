package source

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// Resolve asks the repository which commit ref names now (a tag, peeled,
// or a branch). It is for authoring a new pin (rebase --onto), never for
// verifying one: a pin always carries the commit it expects.
func Resolve(ctx context.Context, repository, ref string) (string, error) {
	if fullHash.MatchString(ref) {
		return ref, nil
	}
	repo := newRemoteRepo(repository)
	refs, err := listRefs(ctx, repo)
	if err != nil {
		return "", err
	}
	byName := map[plumbing.ReferenceName]plumbing.Hash{}
	for _, r := range refs {
		byName[r.Name()] = r.Hash()
	}
	for _, name := range []string{"refs/tags/" + ref + "^{}", "refs/tags/" + ref, "refs/heads/" + ref, ref} {
		if h, ok := byName[plumbing.ReferenceName(name)]; ok {
			return h.String(), nil
		}
	}
	return "", fmt.Errorf("%s has no tag or branch %q", repo.shown, ref)
}
