package gitstore

import (
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// UpstreamRef marks the upstream base commit; export takes the commits
// after it as the series.
const UpstreamRef = "refs/epp-build/upstream"

// SetRefs points the branch (and HEAD) at head, and marks base as the
// upstream unless the tree already has that mark (a series applied in
// several steps keeps its first base). Without a branch HEAD is detached
// at head.
func SetRefs(repo *git.Repository, base, head plumbing.Hash, branch string) error {
	var refs []*plumbing.Reference
	if _, err := repo.Reference(UpstreamRef, false); err != nil {
		refs = append(refs, plumbing.NewHashReference(UpstreamRef, base))
	}
	if branch != "" {
		name := plumbing.NewBranchReferenceName(branch)
		refs = append(refs,
			plumbing.NewHashReference(name, head),
			plumbing.NewSymbolicReference(plumbing.HEAD, name))
	} else {
		refs = append(refs, plumbing.NewHashReference(plumbing.HEAD, head))
	}
	for _, r := range refs {
		if cur, err := repo.Storer.Reference(r.Name()); err == nil && cur.Strings() == r.Strings() {
			continue // a re-apply in place keeps HEAD on the same branch
		}
		if err := repo.Storer.SetReference(r); err != nil {
			return fmt.Errorf("set %s: %w", r.Name(), err)
		}
	}
	return nil
}
