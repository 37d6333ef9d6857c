package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// shortHash is an abbreviated commit hash as git prints one.
var shortHash = regexp.MustCompile(`^[0-9a-f]{4,39}$`)

// IsShortHash says whether ref looks like an abbreviated commit hash.
func IsShortHash(ref string) bool { return shortHash.MatchString(ref) }

// Resolve asks the repository which commit ref names now (a tag, peeled,
// a branch, or a short commit hash). It is for authoring a new pin (rebase
// --onto), never for verifying one: a pin always carries the commit it
// expects.
//
// A short hash is resolved when it starts exactly one advertised branch or
// tag commit, or, for a repository on this machine, one commit of its
// history; a remote commit further back needs its full hash (finding it
// would mean fetching the history).
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
	if !shortHash.MatchString(ref) {
		return "", fmt.Errorf("%s has no tag or branch %q", repo.shown, ref)
	}
	return resolveShort(repository, repo.shown, ref, byName)
}

// resolveShort finds the one commit short starts: among the advertised
// tips (an annotated tag by the commit it points at), else in a local
// repository's history.
func resolveShort(repository, shown, short string, byName map[plumbing.ReferenceName]plumbing.Hash) (string, error) {
	matches := map[string]bool{}
	for name, h := range byName {
		if _, peeled := byName[name+"^{}"]; peeled || h.IsZero() {
			continue // a tag object (its commit is the ^{} entry) or a symbolic ref
		}
		if strings.HasPrefix(h.String(), short) {
			matches[h.String()] = true
		}
	}
	if len(matches) == 0 {
		if dir := localRepositoryDir(repository); dir != "" {
			r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
			if err != nil {
				return "", fmt.Errorf("open local repository %s: %w", dir, err)
			}
			// ResolveRevision also reads names; only a commit whose hash
			// starts with short is the answer.
			h, err := r.ResolveRevision(plumbing.Revision(short))
			if err == nil && !h.IsZero() && strings.HasPrefix(h.String(), short) {
				if _, cerr := r.CommitObject(*h); cerr == nil {
					return h.String(), nil
				}
			}
			if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
				return "", fmt.Errorf("%s: commit %s: %w", shown, short, err)
			}
		}
		return "", fmt.Errorf("%s has no tag or branch %q, and no branch or tag commit starts with it; a short commit hash further back cannot be resolved without the repository's history: give the full 40-digit commit", shown, short)
	}
	if len(matches) > 1 {
		var all []string
		for h := range matches {
			all = append(all, h)
		}
		sort.Strings(all)
		return "", fmt.Errorf("%s: short commit %s is ambiguous (%s): give more digits", shown, short, strings.Join(all, ", "))
	}
	for h := range matches {
		return h, nil
	}
	return "", nil
}

// localRepositoryDir is the folder of a repository given as a path or a
// file:// URL, or "" for a remote one.
func localRepositoryDir(repository string) string {
	dir := repository
	if rest, ok := strings.CutPrefix(repository, "file://"); ok {
		dir = rest
	} else if strings.Contains(repository, "://") {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}
