package patchset

import (
	"fmt"
	"sort"

	"github.com/epp-build/epp-build/internal/guard"
	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/recipe"
)

// TreeState is how an applied tree stands against a recipe, read the way
// a re-apply reads it (inspectExisting and guard.Inspect), so that status
// and apply cannot disagree about local changes. Nothing is written.
type TreeState struct {
	Record *Record
	// Reasons say how the recipe's series differs from the applied one.
	Reasons []string
	// Modified are tracked files changed, deleted or staged.
	Modified []string
	// InTheWay are untracked (or ignored) files where the recipe's
	// patches write: a re-apply refuses them. Other untracked files are
	// the user's and stay, so they do not count.
	InTheWay []string
	// Commits are commits apply did not make. For the same series only
	// those whose tree the series does not make count, as in a re-apply;
	// for a changed series a re-apply keeps the tree only if the new
	// series makes their trees, which is known only once it is applied.
	Commits []guard.ForeignCommit
	// Head is the commit HEAD is at; Record.Head is where apply left it.
	Head string
	// Interrupted is a re-apply in place stopped half way (its journal is
	// there): the files are part old, part new, and the next apply
	// completes it before anything else.
	Interrupted bool
}

// Current is true when HEAD, the index and the work tree hold what the
// recipe's series gives.
func (s *TreeState) Current() bool {
	return len(s.Reasons) == 0 && len(s.Modified) == 0 && len(s.InTheWay) == 0 &&
		len(s.Commits) == 0 && !s.HeadMoved() && !s.Interrupted
}

// HeadMoved is true when HEAD is not the commit apply left it at (a
// commit on top, a reset, another branch checked out).
func (s *TreeState) HeadMoved() bool { return s.Head != s.Record.Head }

// ExamineTree reads the applied tree out against r's series s.
func ExamineTree(r *recipe.Recipe, s *Series, out string) (*TreeState, error) {
	patches := s.list()
	j, err := outdir.ReadJournal[Record](out)
	if err != nil {
		return nil, err
	}
	ex, err := inspectExisting(r, patches, out)
	if err != nil {
		return nil, err
	}
	if ex == nil {
		return nil, fmt.Errorf("%s does not exist or is empty: nothing is applied there", out)
	}
	defer ex.close()
	st := &TreeState{Record: ex.rec, Reasons: ex.reasons, Modified: ex.local.Modified, Commits: ex.local.Commits, Interrupted: j != nil}
	head, err := ex.repo.Head()
	if err != nil {
		return nil, fmt.Errorf("HEAD of %s: %w", out, err)
	}
	st.Head = head.Hash().String()
	if len(st.Reasons) == 0 {
		if len(st.Commits) > 0 {
			trees, err := guard.CommitTrees(out, ex.rec.commits())
			if err != nil {
				return nil, err
			}
			ex.local.DropReproduced(trees)
			st.Commits = ex.local.Commits
		}
	} else {
		st.InTheWay = untrackedInTheWay(ex.local.Untracked, writtenPaths(patches))
	}
	for _, l := range []*[]string{&st.Reasons, &st.Modified, &st.InTheWay} {
		if *l == nil {
			*l = []string{}
		}
	}
	if st.Commits == nil {
		st.Commits = []guard.ForeignCommit{}
	}
	return st, nil
}

// writtenPaths are the paths the patches leave a file at. A re-apply
// that also moves the upstream may write more; those show only when it
// runs.
func writtenPaths(patches []*Patch) []string {
	seen := map[string]bool{}
	for _, p := range patches {
		for _, f := range p.Files {
			if !f.IsDelete {
				seen[f.NewName] = true
			}
		}
	}
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}
