// Package backport moves fixes between release lines: pick patches or
// commits into a version's series with their provenance, and rebase a
// series onto another upstream pin, stopping at conflicts like git rebase.
// command.go sequences the pick and rebase commands; the apply and fetch
// they need are passed in (patchset.Applier, Materializer), so backport
// does not depend on how the caller fetches.
package backport

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/redact"

	"github.com/epp-build/epp-build/internal/dirswap"
	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/trailer"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// PickOptions say where picks come from and why they are carried.
type PickOptions struct {
	// Upstream is the Upstream: trailer for every pick (a PR or commit
	// URL); commits of a repository whose origin is a web host get their
	// commit URL when it is empty.
	Upstream string
	// Reason is the Reason: trailer.
	Reason string
	// Repo, when set, is a local repository and the sources are its
	// revisions or ranges (A..B).
	Repo string
	// Author ("Name <email>"), Date and Subject are the header of a
	// plain diff (plain.go); ConfigDir is where git's user.name and
	// user.email are read when Author is empty.
	Author, Date, Subject string
	ConfigDir             string
}

// Collect reads the patches to pick: patch files (one or many patches
// each) or, with opt.Repo, commits; each gets Upstream: and Reason:
// trailers unless it already has them.
func Collect(sources []string, opt PickOptions) ([]*patchset.Patch, error) {
	if err := trailerFlags(opt); err != nil {
		return nil, err
	}
	if opt.Repo != "" {
		if err := headerFlagsUnused(opt, opt.Repo); err != nil {
			return nil, err
		}
	}
	var out []*patchset.Patch
	for _, src := range sources {
		var ps []*patchset.Patch
		var err error
		if opt.Repo != "" {
			ps, err = fromRepo(opt.Repo, src, opt.Upstream)
		} else {
			plain := false
			ps, err = patchset.ParseFileOrDiff(src, filepath.Base(src), plainHeader(opt, &plain))
			if err == nil && !plain {
				err = headerFlagsUnused(opt, src)
			}
			for _, p := range ps {
				p.Header.Body = withTrailer(p.Header.Body, "Upstream", opt.Upstream)
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	for _, p := range out {
		// A mail header can carry a newline RFC 2047-encoded.
		if err := identityText(p.Name(), object.Signature{Name: p.Header.Author.Name, Email: p.Header.Author.Email}); err != nil {
			return nil, err
		}
		if err := binaryData(p); err != nil {
			return nil, err
		}
		// The user's reason is why this line carries the pick: a Reason:
		// the message brings along does not stand in for it.
		p.Header.Body = withReasonBody(withLine(p.Header.Body, "Reason", opt.Reason), opt.Reason)
		tr := trailer.Parse(p.Header.Body)
		if len(tr.Values("Upstream")) == 0 {
			return nil, fmt.Errorf("pick %q: no Upstream: trailer and no --upstream-link: say where the change comes from (a PR or commit URL)", p.Header.Title)
		}
		if len(tr.Values("Reason")) == 0 {
			return nil, fmt.Errorf("pick %q: no Reason: trailer and no --reason: say why the line carries it", p.Header.Title)
		}
	}
	return out, nil
}

// fromRepo formats the commits of rev (one commit, or A..B) in repoDir.
func fromRepo(repoDir, rev, upstream string) ([]*patchset.Patch, error) {
	repo, err := openRepo(repoDir)
	if err != nil {
		return nil, fmt.Errorf("pick from %s: %w", repoDir, err)
	}
	commits, err := revisions(repo, rev)
	if err != nil {
		return nil, fmt.Errorf("pick %s from %s: %w", rev, repoDir, err)
	}
	if len(commits) == 0 {
		return nil, &UsageError{fmt.Errorf("pick %s from %s: the range holds no commits (every commit its right side reaches, its left side reaches too): name the older commit first, A..B", rev, repoDir)}
	}
	web := webURL(repo)
	var out []*patchset.Patch
	for _, c := range commits {
		if err := identityText("commit "+gitformat.Short(c.Hash.String()), c.Author); err != nil {
			return nil, err
		}
		if err := messageText("commit "+gitformat.Short(c.Hash.String()), c.Message); err != nil {
			return nil, err
		}
		data, err := export.FormatCommit(repo.Storer, c)
		if err != nil {
			return nil, err
		}
		ps, err := patchset.Parse(gitformat.Short(c.Hash.String())+".patch", data)
		if err != nil {
			return nil, err
		}
		link := upstream
		if link == "" && web != "" {
			link = web + "/commit/" + c.Hash.String()
		}
		// Upstream: is where the pick was made from; a message can say
		// anything, so its own Upstream: goes.
		ps[0].Header.Body = withTrailer(trailer.Remove(ps[0].Header.Body, "Upstream"), "Upstream", link)
		out = append(out, ps...)
	}
	return out, nil
}

// openRepo opens a work tree (from any folder in it), a linked worktree
// or a bare repository, as git -C does: a folder that is itself a bare
// repository is taken as one, not searched above.
func openRepo(dir string) (*git.Repository, error) {
	_, errGit := os.Lstat(filepath.Join(dir, ".git"))
	_, errHead := os.Stat(filepath.Join(dir, "HEAD"))
	objects, errObj := os.Stat(filepath.Join(dir, "objects"))
	bare := errGit != nil && errHead == nil && errObj == nil && objects.IsDir()
	return git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: !bare, EnableDotGitCommonDir: true})
}

// revisions are the commits rev names, oldest first, as git cherry-pick
// reads it: one commit; A..B, the commits B reaches and A does not (A or
// B left out is HEAD); or A^!, the commit A alone. A range of a merge is
// refused: its change has no one parent to be taken against.
func revisions(repo *git.Repository, rev string) ([]*object.Commit, error) {
	if strings.Contains(rev, "...") {
		return nil, &UsageError{fmt.Errorf("%s: a symmetric range (A...B) is not a pick; name the commits, or A..B", rev)}
	}
	if one, ok := strings.CutSuffix(rev, "^!"); ok {
		c, err := commitOf(repo, one)
		if err != nil {
			return nil, err
		}
		return []*object.Commit{c}, nil
	}
	from, to, isRange := strings.Cut(rev, "..")
	if !isRange {
		c, err := commitOf(repo, rev)
		if err != nil {
			return nil, err
		}
		return []*object.Commit{c}, nil
	}
	if from == "" {
		from = "HEAD"
	}
	if to == "" {
		to = "HEAD"
	}
	exclude, err := commitOf(repo, from)
	if err != nil {
		return nil, err
	}
	include, err := commitOf(repo, to)
	if err != nil {
		return nil, err
	}
	hidden, err := ancestors(repo, exclude)
	if err != nil {
		return nil, err
	}
	return reachable(repo, include, hidden)
}

// commitOf resolves rev to a commit, peeling an annotated tag.
func commitOf(repo *git.Repository, rev string) (*object.Commit, error) {
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rev, err)
	}
	return repo.CommitObject(*h)
}

// ancestors is c and every commit it reaches.
func ancestors(repo *git.Repository, c *object.Commit) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{c.Hash: true}
	todo := []plumbing.Hash{c.Hash}
	for len(todo) > 0 {
		h := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		cc, err := repo.CommitObject(h)
		if err != nil {
			return nil, err
		}
		for _, p := range cc.ParentHashes {
			if !seen[p] {
				seen[p] = true
				todo = append(todo, p)
			}
		}
	}
	return seen, nil
}

// reachable is the commits tip reaches outside hidden, parents before
// children (git rev-list --reverse --topo-order); a merge among them is
// refused, as git cherry-pick refuses one without -m.
func reachable(repo *git.Repository, tip *object.Commit, hidden map[plumbing.Hash]bool) ([]*object.Commit, error) {
	var out []*object.Commit
	done := map[plumbing.Hash]bool{}
	var visit func(c *object.Commit) error
	visit = func(c *object.Commit) error {
		if hidden[c.Hash] || done[c.Hash] {
			return nil
		}
		done[c.Hash] = true
		if c.NumParents() > 1 {
			return fmt.Errorf("commit %s is a merge: pick the commits it brings in (a range of one of its parents) instead", gitformat.Short(c.Hash.String()))
		}
		for _, p := range c.ParentHashes {
			pc, err := repo.CommitObject(p)
			if err != nil {
				return err
			}
			if err := visit(pc); err != nil {
				return err
			}
		}
		out = append(out, c)
		return nil
	}
	return out, visit(tip)
}

var scpLike = regexp.MustCompile(`^git@([^:]+):(.+)$`)

// webURL is the browsable URL of the repository's origin, when it has one.
func webURL(repo *git.Repository) string {
	remote, err := repo.Remote("origin")
	if err != nil || len(remote.Config().URLs) == 0 {
		return ""
	}
	u := remote.Config().URLs[0]
	if m := scpLike.FindStringSubmatch(u); m != nil {
		u = "https://" + m[1] + "/" + m[2]
	}
	if !strings.HasPrefix(u, "https://") {
		return ""
	}
	// The link is written into a patch file: no credential of origin's.
	return strings.TrimSuffix(strings.TrimSuffix(redact.Strip(u), "/"), ".git")
}

// withTrailer adds "key: value" to the body's trailer block unless the
// body has that key already or value is empty.
func withTrailer(body, key, value string) string {
	if value == "" || len(trailer.Parse(body).Values(key)) > 0 {
		return body
	}
	return trailer.Add(body, key, value)
}

// withLine adds "key: value" to the body's trailer block unless that very
// line is there already or value is empty.
func withLine(body, key, value string) string {
	if value == "" || slices.Contains(trailer.Parse(body).Values(key), value) {
		return body
	}
	return trailer.Add(body, key, value)
}

// NewVersion creates patches/<name> extending base, for a line that is
// base plus picks.
func NewVersion(root, name, base string) (string, error) {
	dir := filepath.Join(root, name)
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("version %s exists already (%s)", name, dir)
	}
	if _, err := recipe.LoadVersion(root, base); err != nil {
		return "", err
	}
	text := fmt.Sprintf("# %s: %s plus backports.\nextends: %s\npatches: []\n", name, base, base)
	// Made beside and renamed into place: a kill leaves no folder without
	// its recipe, which no command would load and the next pick would not
	// create again.
	return dir, dirswap.Create(dir, 0o755, func(staging string) error {
		return os.WriteFile(filepath.Join(staging, recipe.FileName), []byte(text), 0o644)
	})
}
