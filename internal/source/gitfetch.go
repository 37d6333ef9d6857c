package source

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/memory"
)

// pinRef is where a commit pin lands in the fetch's scratch storage.
const pinRef = "refs/epp-build/pin"

// fetchGit fetches exactly the pinned ref, one commit deep, and caches it.
func fetchGit(ctx context.Context, c *cache, req Request) (*Tree, error) {
	url := req.repository()
	if url == "" {
		return nil, errors.New("no upstream repository: set upstream.repository in the recipe or pass an upstream URL")
	}
	want := req.Pin.Commit
	return c.get(ctx, "git-"+want, expectation{commit: want}, func(ctx context.Context, tmp string) (*entryMeta, error) {
		s := memory.NewStorage()
		got, err := shallowFetch(ctx, s, url, req.Pin.Ref)
		if err != nil {
			return nil, err
		}
		if got.String() != want {
			return nil, &MismatchError{Ref: req.Pin.Ref, Want: want, Got: got.String(), Repository: url}
		}
		m := &entryMeta{Via: Git, Commit: want, Origin: url, Ref: req.Pin.Ref}
		if err := buildFromObjects(ctx, tmp, s, got, m); err != nil {
			return nil, err
		}
		return m, nil
	})
}

// shallowFetch fetches ref (a tag name, a full ref name or a full commit
// hash) at depth 1 into s and returns the commit it names, tags peeled.
// Failures to talk to the server or find the ref are fetchErrors.
func shallowFetch(ctx context.Context, s *memory.Storage, url, ref string) (plumbing.Hash, error) {
	var spec config.RefSpec
	var local plumbing.ReferenceName
	switch {
	case fullHash.MatchString(ref):
		local = pinRef
		spec = config.RefSpec(ref + ":" + pinRef)
	case strings.HasPrefix(ref, "refs/"):
		local = plumbing.ReferenceName(ref)
		spec = config.RefSpec("+" + ref + ":" + ref)
	default:
		local = plumbing.NewTagReferenceName(ref)
		spec = config.RefSpec("+" + local.String() + ":" + local.String())
	}
	remote := git.NewRemote(s, &config.RemoteConfig{Name: "origin", URLs: []string{url}})
	err := remote.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RefSpecs:   []config.RefSpec{spec},
		Depth:      1,
		Tags:       git.NoTags,
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		if ctx.Err() != nil {
			return plumbing.ZeroHash, ctx.Err()
		}
		return plumbing.ZeroHash, asFetchError(Git, describeFetchError(err, url, ref))
	}
	r, err := s.Reference(local)
	if err != nil {
		return plumbing.ZeroHash, asFetchError(Git, fmt.Errorf("git fetch %s %s: the server sent no %s", url, ref, local))
	}
	commit, err := peel(s, r.Hash())
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("ref %s at %s: %w", ref, url, err)
	}
	return commit, nil
}

// describeFetchError names the repository and ref and says what to do.
func describeFetchError(err error, url, ref string) error {
	var noRef git.NoMatchingRefSpecError
	switch {
	case errors.Is(err, git.ErrExactSHA1NotSupported):
		return fmt.Errorf("git fetch %s %s: the server does not allow fetching a commit by its hash; pin a tag in upstream.ref (keeping upstream.commit) instead: %w", url, ref, err)
	case errors.As(err, &noRef):
		return fmt.Errorf("git fetch %s: ref %s does not exist there (check upstream.ref): %w", url, ref, err)
	}
	return fmt.Errorf("git fetch %s %s: %w", url, ref, err)
}
