package source

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// refsScanDepths are the depths tried, in order, when a commit must be
// found in the history of the advertised refs: shallow first, then whole.
var refsScanDepths = []int{64, 0}

// fetchCommitThroughRefs gets a commit from a server that refuses wants
// for unadvertised commits (git's default without
// uploadpack.allowReachableSHA1InWant, and most plain mirrors): a ref
// whose tip is the commit is fetched as usual; otherwise the branches and
// tags are fetched, shallow first, until the commit turns up.
func fetchCommitThroughRefs(ctx context.Context, tmp string, repo remoteRepo, want string, m *entryMeta, p *progress.Reporter, lim gitLimits) error {
	if err := os.RemoveAll(filepath.Join(tmp, gitDirName)); err != nil {
		return err
	}
	tip, err := refAt(ctx, repo, want)
	if err != nil {
		return err
	}
	if tip != "" {
		return fetchStreamed(ctx, tmp, repo, tip, want, m, p, lim)
	}
	scratch := filepath.Join(tmp, "scratch")
	defer os.RemoveAll(scratch)
	for _, depth := range refsScanDepths {
		if err := os.RemoveAll(scratch); err != nil {
			return err
		}
		s, err := fetchBranchesAndTags(ctx, scratch, repo, depth, p, lim)
		if err != nil {
			return err
		}
		if _, err := object.GetCommit(s, plumbing.NewHash(want)); err == nil {
			err = buildFromObjects(ctx, tmp, s, plumbing.NewHash(want), m)
			s.Close()
			return err
		}
		s.Close()
	}
	return asFetchError(Git, fmt.Errorf("git fetch %s: commit %s is in the history of no branch or tag there, and the server does not serve commits by hash (check upstream.commit, or pin a tag in upstream.ref)", repo.shown, want))
}

// listRefs lists the advertised refs, annotated tags also peeled (as
// NAME^{}), as `git ls-remote` does.
func listRefs(ctx context.Context, repo remoteRepo) ([]*plumbing.Reference, error) {
	useGitDeadlines()
	session, err := uploadPackSession(repo)
	if err != nil {
		return nil, describeFetchError(err, repo, "(list refs)")
	}
	defer session.Close()
	adv, err := session.AdvertisedReferencesContext(ctx)
	if err != nil {
		return nil, describeFetchError(err, repo, "(list refs)")
	}
	refs := make([]*plumbing.Reference, 0, len(adv.References)+len(adv.Peeled))
	for name, h := range adv.References {
		refs = append(refs, plumbing.NewHashReference(plumbing.ReferenceName(name), h))
	}
	for name, h := range adv.Peeled {
		refs = append(refs, plumbing.NewHashReference(plumbing.ReferenceName(name+"^{}"), h))
	}
	// In a fixed order, so that a listing reads the same each time.
	slices.SortFunc(refs, func(a, b *plumbing.Reference) int { return strings.Compare(a.Name().String(), b.Name().String()) })
	return refs, nil
}

// refAt returns the name of an advertised branch or tag whose tip (tags
// peeled) is commit, or "" when none is.
func refAt(ctx context.Context, repo remoteRepo, commit string) (string, error) {
	refs, err := listRefs(ctx, repo)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", asFetchError(Git, err)
	}
	for _, r := range refs {
		name := strings.TrimSuffix(r.Name().String(), "^{}")
		if r.Hash().String() == commit && (strings.HasPrefix(name, "refs/heads/") || strings.HasPrefix(name, "refs/tags/")) {
			return name, nil
		}
	}
	return "", nil
}

// fetchBranchesAndTags fetches the branches and tags of repo, depth
// commits deep (0: whole), into the git dir scratch, and returns a store
// over it for the caller to close.
func fetchBranchesAndTags(ctx context.Context, scratch string, repo remoteRepo, depth int, p *progress.Reporter, lim gitLimits) (*filesystem.Storage, error) {
	if err := streamBranchesAndTags(ctx, scratch, repo, depth, p, lim); err != nil {
		return nil, err
	}
	return filesystem.NewStorage(osfs.New(scratch), gitcache.NewObjectLRUDefault()), nil
}

// streamBranchesAndTags receives the branches and tags of repo, depth
// commits deep (0: whole), into the git dir scratch, as fetchStreamed
// receives a pin, under the receiver's limits. Their blobs go to a
// store of the scratch's own, which only resolves the pack's deltas.
func streamBranchesAndTags(ctx context.Context, scratch string, repo remoteRepo, depth int, p *progress.Reporter, lim gitLimits) error {
	const what = "branches and tags"
	session, adv, err := openUploadPack(ctx, repo, what)
	if err != nil {
		return err
	}
	defer session.Close()
	wants := advertisedTips(adv)
	if len(wants) == 0 {
		return asFetchError(Git, fmt.Errorf("git fetch %s: the server advertises no branch or tag", repo.shown))
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return err
	}
	pool, err := newBlobWriter(filepath.Join(scratch, blobsName), time.Now(), nil)
	if err != nil {
		return err
	}
	_, err = requestPack(ctx, session, adv, packWant{wants: wants, depth: depth}, scratch, repo, what, pool, p, lim)
	if _, _, cerr := pool.close(); err == nil {
		err = cerr
	}
	return err
}

// advertisedTips are the objects the server advertises for its branches
// and tags, in a fixed order so that the same refs make the same request.
func advertisedTips(adv *packp.AdvRefs) []plumbing.Hash {
	var tips []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	for name, hash := range adv.References {
		if (strings.HasPrefix(name, "refs/heads/") || strings.HasPrefix(name, "refs/tags/")) && !seen[hash] {
			seen[hash] = true
			tips = append(tips, hash)
		}
	}
	slices.SortFunc(tips, func(a, b plumbing.Hash) int { return bytes.Compare(a[:], b[:]) })
	return tips
}
