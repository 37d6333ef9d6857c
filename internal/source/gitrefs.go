package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/epp-build/epp-build/internal/progress"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"
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
		return fetchPackInto(ctx, tmp, repo, tip, want, m, p, lim)
	}
	scratch := filepath.Join(tmp, "scratch")
	defer os.RemoveAll(scratch)
	specs := []config.RefSpec{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"}
	for _, depth := range refsScanDepths {
		if err := os.RemoveAll(scratch); err != nil {
			return err
		}
		s := filesystem.NewStorage(osfs.New(scratch), gitcache.NewObjectLRUDefault())
		if err := fetchSpecs(ctx, s, repo, "branches and tags", depth, specs...); err != nil {
			s.Close()
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
// NAME^{}).
func listRefs(ctx context.Context, repo remoteRepo) ([]*plumbing.Reference, error) {
	useGitDeadlines()
	remote := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{repo.url}})
	refs, err := remote.ListContext(ctx, &git.ListOptions{PeelingOption: git.AppendPeeled})
	if err != nil {
		return nil, describeFetchError(err, repo, "(list refs)")
	}
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
