package guard

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/sync/errgroup"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// LocalChanges is what an existing --out holds that apply did not make:
// a re-apply that replaced the tree would lose it.
type LocalChanges struct {
	// Modified are tracked files changed, deleted or staged ("README.md").
	Modified []string
	// Untracked are files git does not track, ignored ones included.
	Untracked []string
	// Commits are commits reachable from a ref that apply did not make.
	Commits []ForeignCommit
	// Leftovers are untracked files a run killed while replacing a file of
	// the tree left beside it (atomicfile's temporary files). Apply made
	// them, so they are no change of the user's: Empty and String leave
	// them out, and apply removes them (RemoveLeftovers).
	Leftovers []string
}

// ForeignCommit is a commit in --out that apply did not make.
type ForeignCommit struct {
	Hash    plumbing.Hash
	Tree    plumbing.Hash
	Subject string
}

// Empty is true when nothing would be lost.
func (l *LocalChanges) Empty() bool {
	return l == nil || len(l.Modified) == 0 && len(l.Untracked) == 0 && len(l.Commits) == 0
}

// maxNamed is how many names of each kind a message lists.
const maxNamed = 5

// String names what would be lost, a few of each kind.
func (l *LocalChanges) String() string {
	var parts []string
	if len(l.Modified) > 0 {
		parts = append(parts, "changed tracked files: "+nameSome(l.Modified))
	}
	if len(l.Untracked) > 0 {
		parts = append(parts, "untracked files: "+nameSome(l.Untracked))
	}
	if len(l.Commits) > 0 {
		names := make([]string, len(l.Commits))
		for i, c := range l.Commits {
			names[i] = fmt.Sprintf("%s %q", gitformat.Short(c.Hash.String()), c.Subject)
		}
		parts = append(parts, "commits apply did not make: "+nameSome(names))
	}
	return strings.Join(parts, "; ")
}

func nameSome(names []string) string {
	shown := names
	if len(shown) > maxNamed {
		shown = shown[:maxNamed]
	}
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = textsafe.Escape(n)
	}
	s := strings.Join(quoted, ", ")
	if more := len(names) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// DropReproduced forgets the commits whose tree is among trees, those of
// the series' commits (CommitTrees): the series holds them, so replacing
// the tree loses nothing (this is how a commit made on top and exported
// into the recipe counts as kept).
func (l *LocalChanges) DropReproduced(trees map[plumbing.Hash]bool) {
	kept := l.Commits[:0]
	for _, c := range l.Commits {
		if !trees[c.Tree] {
			kept = append(kept, c)
		}
	}
	l.Commits = kept
}

// LocalChangesError refuses to replace an --out that holds changes apply
// did not make. Its message says how to keep them and how to discard them.
type LocalChangesError struct {
	Dir string
	// RecipeDir is where export puts the series back.
	RecipeDir string
	// BuiltIn: RecipeDir is the cached copy of the recipes built into
	// epp-build, which is replaced at the next upgrade (or the next use, if
	// changed): the advice names a folder of the user's instead.
	BuiltIn bool
	Changes *LocalChanges
}

func (e *LocalChangesError) Error() string {
	var b strings.Builder
	dir, recipeDir := shellArg(e.Dir), shellArg(e.RecipeDir)
	fmt.Fprintf(&b, "output %s holds changes a re-apply would lose (%s).\n", e.Dir, e.Changes)
	b.WriteString("To keep them in the series: ")
	if len(e.Changes.Modified) > 0 || len(e.Changes.Untracked) > 0 {
		fmt.Fprintf(&b, "`git -C %s add -A && git -C %s commit`, then ", dir, dir)
	}
	if e.BuiltIn {
		// The version folder alone would not do: a recipe may extend another.
		version := shellArg(filepath.Base(e.RecipeDir))
		fmt.Fprintf(&b, "`epp-build export --dir %s --to DIR/%s` into recipes of your own (a checkout's patches/, or a copy "+
			"you pass as --patches DIR) and apply again from them; the recipes built into epp-build cannot keep them.\n", dir, version)
	} else {
		fmt.Fprintf(&b, "`epp-build export --dir %s --to %s` (this rewrites the patch files there from the tree) and apply again.\n", dir, recipeDir)
	}
	fmt.Fprintf(&b, "To replace the tree anyway: apply again with --force; the old tree is moved to %s and kept", outdir.BackupPattern(e.Dir))
	return b.String()
}

// shellArg quotes s for a POSIX shell when it needs it, so advice can be
// pasted as it is.
func shellArg(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) || strings.ContainsRune("-_./:@+=,", r))
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Inspect lists what the work tree dir holds beyond what apply made there:
// known are the commits apply made, with the upstream base. idx is dir's
// index and trees its folder hashes (gitstore.IndexTrees; nil when
// unknown).
func Inspect(repo *git.Repository, idx *index.Index, trees map[string]plumbing.Hash, dir string, known []plumbing.Hash) (*LocalChanges, error) {
	written, err := indexWritten(dir)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", dir, err)
	}
	// The walk needs only the index and the file system, so it runs beside
	// the checks that read the repository.
	var (
		g      errgroup.Group
		scan   *workTreeScan
		isHead bool
		l      = &LocalChanges{}
	)
	g.Go(func() (err error) {
		if scan, err = scanWorkTree(dir, idx, written); err != nil {
			return fmt.Errorf("status of %s: %w", dir, err)
		}
		return nil
	})
	g.Go(func() (err error) {
		isHead = indexIsHead(repo, trees)
		if l.Commits, err = foreignCommits(repo, known); err != nil {
			return fmt.Errorf("history of %s: %w", dir, err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	l.Untracked, l.Leftovers = scan.untracked, scan.leftovers
	if !isHead || !scan.tracked {
		if l.Modified, err = changedTracked(repo); err != nil {
			return nil, fmt.Errorf("status of %s: %w", dir, err)
		}
	}
	return l, nil
}

// changedTracked lists, from git's full status, the tracked paths whose
// index or work tree content differs from HEAD.
func changedTracked(repo *git.Repository) ([]string, error) {
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	st, err := wt.Status()
	if err != nil {
		return nil, err
	}
	var out []string
	for p, s := range st {
		if s.Staging == git.Untracked || s.Staging == git.Unmodified && s.Worktree == git.Unmodified {
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// foreignCommits walks every ref back to a known commit (or the one
// UpstreamRef marks) and returns the commits on the way.
func foreignCommits(repo *git.Repository, commits []plumbing.Hash) ([]ForeignCommit, error) {
	known := make(map[plumbing.Hash]bool, len(commits)+1)
	for _, h := range commits {
		known[h] = true
	}
	if up, err := repo.Reference(gitstore.UpstreamRef, true); err == nil {
		known[up.Hash()] = true
	}
	var tips []plumbing.Hash
	if head, err := repo.Head(); err == nil {
		tips = append(tips, head.Hash())
	}
	refs, err := repo.References()
	if err != nil {
		return nil, err
	}
	err = refs.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference {
			tips = append(tips, r.Hash())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []ForeignCommit
	seen := map[plumbing.Hash]bool{}
	for len(tips) > 0 {
		h := tips[len(tips)-1]
		tips = tips[:len(tips)-1]
		if known[h] || seen[h] {
			continue
		}
		seen[h] = true
		c, err := commitAt(repo, h)
		if err != nil {
			continue // a shallow upstream ends here
		}
		out = append(out, ForeignCommit{Hash: c.Hash, Tree: c.TreeHash, Subject: subject(c.Message)})
		tips = append(tips, c.ParentHashes...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hash.String() < out[j].Hash.String() })
	return out, nil
}

// commitAt resolves h, which may be an annotated tag, to its commit.
func commitAt(repo *git.Repository, h plumbing.Hash) (*object.Commit, error) {
	if t, err := repo.TagObject(h); err == nil {
		return t.Commit()
	}
	return repo.CommitObject(h)
}

func subject(msg string) string {
	s, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return s
}

// CommitTrees is the set of trees the commits (a series: its base and
// its commits) have in the repository dir.
func CommitTrees(dir string, commits []plumbing.Hash) (map[plumbing.Hash]bool, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, err
	}
	trees := map[plumbing.Hash]bool{}
	for _, h := range commits {
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("commit %s of the series: %w", gitformat.Short(h.String()), err)
		}
		trees[c.TreeHash] = true
	}
	return trees, nil
}
