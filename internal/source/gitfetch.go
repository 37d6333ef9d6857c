package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	gitcache "github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage"
	"github.com/go-git/go-git/v5/storage/filesystem"
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
		// The fetch lands in the entry's own git dir, so the server's pack
		// (already compressed and delta-encoded) is kept as received
		// instead of being decoded into memory and packed again.
		s := filesystem.NewStorageWithOptions(osfs.New(filepath.Join(tmp, gitDirName)), gitcache.NewObjectLRUDefault(), filesystem.Options{KeepDescriptors: true})
		defer s.Close()
		got, err := shallowFetch(ctx, watchFetch(s, req.Progress, url), url, req.Pin.Ref)
		if err != nil {
			return nil, err
		}
		if got.String() != want {
			return nil, &MismatchError{Ref: req.Pin.Ref, Want: want, Got: got.String(), Repository: url}
		}
		pack, err := onlyPack(filepath.Join(tmp, gitDirName))
		if err != nil {
			return nil, fmt.Errorf("git fetch %s %s: %w", url, req.Pin.Ref, err)
		}
		m := &entryMeta{Via: Git, Commit: want, Origin: url, Ref: req.Pin.Ref}
		if err := buildAroundPack(ctx, tmp, s, got, pack, m); err != nil {
			return nil, err
		}
		return m, nil
	})
}

// shallowFetch fetches ref (a tag name, a full ref name or a full commit
// hash) at depth 1 into s and returns the commit it names, tags peeled.
// Failures to talk to the server or find the ref are fetchErrors.
func shallowFetch(ctx context.Context, s storage.Storer, url, ref string) (plumbing.Hash, error) {
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

// onlyPack names the one pack a fetch into an empty git dir wrote.
func onlyPack(gitDir string) (string, error) {
	packs, err := filepath.Glob(filepath.Join(packDir(gitDir), "pack-*.pack"))
	if err != nil {
		return "", err
	}
	if len(packs) != 1 {
		return "", fmt.Errorf("the server sent %d packs, expected one", len(packs))
	}
	name := strings.TrimSuffix(filepath.Base(packs[0]), ".pack")
	if _, err := os.Stat(filepath.Join(packDir(gitDir), name+".idx")); err != nil {
		return "", fmt.Errorf("pack %s has no index: %w", name, err)
	}
	return name, nil
}
