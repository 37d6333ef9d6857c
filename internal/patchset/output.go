package patchset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/epp-build/epp-build/internal/atomicfile"
	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/guard"
	"github.com/epp-build/epp-build/internal/killpoint"
	"github.com/epp-build/epp-build/internal/outdir"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Base is the upstream tree a series applies to, as the source stage
// delivers it.
type Base struct {
	// Upstream is the tree's provenance, as the source stage made it; it
	// goes into the Record unchanged.
	source.Upstream
	// Materialize makes dst (which must not exist) a git work tree at the
	// upstream base.
	Materialize func(ctx context.Context, dst string) error
}

// Outcome says what ApplyTo did.
type Outcome struct {
	Dir string
	// AlreadyApplied is true when dir already held exactly this series and
	// nothing was written.
	AlreadyApplied bool
	// Reasons says why an existing tree was replaced.
	Reasons []string
	// Backup is where the replaced tree went when it held changes apply
	// did not make (only with Options.Force).
	Backup string
	Record *Record
	// InPlace is true when out was updated in place (a clean tree of the
	// same upstream); Rewritten lists the paths written or deleted.
	InPlace   bool
	Rewritten []string
	// Kept lists the user's git state (.git/config, .git/hooks) carried
	// from the replaced tree into the new one.
	Kept []string
	// Completed is the re-apply an interrupted run left half done, which
	// this run completed before anything else (nil when there was none).
	Completed *Record
}

// ApplyTo applies the recipe's series to base and leaves the result in
// out. The work happens in a staging folder beside out, which replaces out
// only when the whole series applied: a failed or cancelled run leaves out
// as it was.
//
// An out that holds changes apply did not make (tracked edits, untracked
// files, commits the series does not reproduce) is never replaced unless
// opt.Force is set; then it is moved to a backup folder beside out.
//
// fetch is called only when there is work to do, so a tree that is already
// applied needs no upstream at all. A clean out of the same upstream is
// updated in place (see inplace.go) and needs no upstream either.
func ApplyTo(ctx context.Context, r *recipe.Recipe, s *Series, fetch func(context.Context) (Base, error), out string, opt Options) (*Outcome, error) {
	patches := s.list()
	out, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	// Everything below reads out and acts on it: another run between the
	// reading and the writing would mix two series. Whatever a run that
	// held the lock before did is seen here, read after locking.
	unlock, err := outdir.Lock(ctx, out, opt.Notice)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := removeStaleStaging(out, opt.Notice); err != nil {
		return nil, err
	}
	if err := repairPacks(out, opt.Notice); err != nil {
		return nil, err
	}
	if err := removeGitLeftovers(out, opt.Notice); err != nil {
		return nil, err
	}
	completed, err := finishInterrupted(out)
	if err != nil {
		return nil, fmt.Errorf("complete the interrupted re-apply of %s: %w (remove %s to look at the tree as it is, or remove the folder and apply again)", out, err, outdir.JournalPath(out))
	}
	o, err := applyTo(ctx, r, patches, fetch, out, opt)
	if o != nil {
		o.Completed = completed
	}
	return o, err
}

// applyTo is ApplyTo once out is locked and what a killed run left is
// repaired.
func applyTo(ctx context.Context, r *recipe.Recipe, patches []*Patch, fetch func(context.Context) (Base, error), out string, opt Options) (*Outcome, error) {
	ex, err := inspectExisting(r, patches, out)
	if err != nil {
		return nil, err
	}
	if ex != nil {
		defer ex.close()
		if err := removeLeftovers(out, ex.local, opt.Notice); err != nil {
			return nil, err
		}
	}
	refuse := func() error { return &guard.LocalChangesError{Dir: out, RecipeDir: r.Dir, Changes: ex.local} }
	// Untracked and ignored files are the user's, not changes to the
	// series: they stay (untracked.go); only one in the way stops a
	// re-apply.
	var untracked []string
	if ex != nil {
		untracked, ex.local.Untracked = ex.local.Untracked, nil
	}
	if ex != nil {
		if len(ex.reasons) == 0 && len(ex.local.Commits) > 0 {
			// The same series: its commits in out say which trees it makes.
			trees, err := guard.CommitTrees(out, ex.rec.commits())
			if err != nil {
				return nil, err
			}
			ex.local.DropReproduced(trees)
		}
		if len(ex.reasons) == 0 {
			if ex.local.Empty() {
				return &Outcome{Dir: out, AlreadyApplied: true, Record: ex.rec}, nil
			}
			if !opt.Force {
				return nil, refuse()
			}
			ex.reasons = []string{"--force: replacing " + ex.local.String()}
		}
		// Commits can be told apart from the series' only once it is
		// applied; everything else is refused before any work.
		if !opt.Force && len(ex.local.Modified) > 0 {
			return nil, refuse()
		}
	}
	if inPlace(r, ex, opt) {
		return reapplyInPlace(ctx, patches, out, ex, untracked, opt)
	}
	base, err := fetch(ctx)
	if err != nil {
		return nil, err
	}
	staging, err := outdir.NewStaging(out)
	if err != nil {
		return nil, err
	}
	defer staging.Remove()
	work := staging.Tree()
	if err := base.Materialize(ctx, work); err != nil {
		return nil, err
	}
	res, err := applyToRepo(ctx, work, patches, opt)
	if err != nil {
		return nil, err
	}
	if ex != nil && len(ex.local.Commits) > 0 && !opt.Force {
		trees, err := guard.CommitTrees(work, res.commits())
		if err != nil {
			return nil, err
		}
		ex.local.DropReproduced(trees)
		if !ex.local.Empty() {
			return nil, refuse()
		}
	}
	if len(untracked) > 0 {
		kept := untracked
		if opt.Force {
			// The old tree goes to a backup whole; what the new one has
			// at the same paths wins.
			kept = nil
			for _, u := range untracked {
				if !inNewTree(work, strings.TrimSuffix(u, "/")) {
					kept = append(kept, u)
				}
			}
		}
		if err := carryUntracked(out, work, kept); err != nil {
			return nil, err
		}
	}
	rec := &Record{Version: r.Version, Upstream: recordedUpstream(r, base), Result: *res}
	if err := WriteRecord(work, rec); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	outcome := &Outcome{Dir: out, Record: rec}
	if ex != nil {
		outcome.Reasons = ex.reasons
		if !ex.local.Empty() {
			outcome.Backup = outdir.BackupName(out, time.Now())
		}
	}
	killpoint.At("staging-built")
	if err := staging.Replace(outcome.Backup); err != nil {
		return nil, err
	}
	outcome.Kept = staging.Kept
	return outcome, nil
}

// ExistingTreeError is an --out folder apply must not replace.
type ExistingTreeError struct {
	Dir    string
	Reason string
}

func (e *ExistingTreeError) Error() string {
	return fmt.Sprintf("output %s: %s", e.Dir, e.Reason)
}

// existing is what an --out made by an earlier apply holds.
type existing struct {
	rec *Record
	// reasons says why the series must be applied again (empty when it is
	// the same series).
	reasons []string
	local   *guard.LocalChanges
	// repo is out's repository, open until close is called.
	repo *git.Repository
	idx  *index.Index
	// trees are the index's folder hashes (gitstore.IndexTrees), nil when
	// unknown.
	trees map[string]plumbing.Hash
	close func()
}

// inspectExisting looks at what out holds. It returns nil when there is
// nothing there (or an empty folder), and refuses a folder apply did not
// make.
func inspectExisting(r *recipe.Recipe, patches []*Patch, out string) (*existing, error) {
	fi, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &ExistingTreeError{Dir: out, Reason: "exists and is not a folder; choose another --out"}
	}
	if empty, err := outdir.IsEmpty(out); err != nil || empty {
		return nil, err
	}
	rec, err := ReadRecord(out)
	if err != nil {
		return nil, &ExistingTreeError{Dir: out, Reason: fmt.Sprintf("its apply record is unreadable (%v); remove the folder or choose another --out", err)}
	}
	if rec == nil {
		return nil, &ExistingTreeError{Dir: out, Reason: "exists, is not empty and was not made by epp-build apply; remove it or choose another --out"}
	}
	repo, done, err := gitstore.Open(out)
	if err != nil {
		return nil, err
	}
	// go-git opens the packs at the first object read, about a millisecond:
	// do it (reading the commit the clean check reads first) while the
	// index is read and hashed, which does not touch the repository.
	opened := make(chan struct{})
	go func() {
		defer close(opened)
		_, _ = repo.CommitObject(plumbing.NewHash(rec.Head))
	}()
	// The index is read once, and not by go-git, which decodes it slowly.
	idx, err := gitformat.ReadIndex(filepath.Join(out, ".git", "index"))
	var trees map[string]plumbing.Hash
	if err == nil {
		trees, _ = gitstore.IndexTrees(idx) // nil for an index in conflict
	}
	<-opened
	if err != nil {
		done()
		return nil, fmt.Errorf("read the git index of %s: %w", out, err)
	}
	local, err := guard.Inspect(repo, idx, trees, out, append(rec.commits(), plumbing.NewHash(rec.Head)))
	if err != nil {
		done()
		return nil, err
	}
	return &existing{rec: rec, reasons: seriesChanges(r, patches, rec), local: local, repo: repo, idx: idx, trees: trees, close: done}, nil
}

// seriesChanges explains how the wanted series differs from the record.
func seriesChanges(r *recipe.Recipe, patches []*Patch, rec *Record) []string {
	reasons := []string{}
	if rec.UpstreamCommit != r.Upstream.Commit {
		reasons = append(reasons, fmt.Sprintf("upstream commit changed (%s -> %s)", textsafe.Escape(gitformat.Short(rec.UpstreamCommit)), gitformat.Short(r.Upstream.Commit)))
	}
	if rec.Version != r.Version {
		reasons = append(reasons, fmt.Sprintf("version changed (%s -> %s)", rec.Version, r.Version))
	}
	for i, p := range patches {
		if i >= len(rec.Patches) {
			reasons = append(reasons, fmt.Sprintf("patch %s is new", p.Name()))
			continue
		}
		a := rec.Patches[i]
		switch {
		case a.File != p.File || a.Part != partNumber(p):
			reasons = append(reasons, fmt.Sprintf("patch %d is now %s (was %s)", i+1, p.Name(), textsafe.Escape(a.File)))
		case a.SHA256 != p.SHA256:
			reasons = append(reasons, fmt.Sprintf("patch %s changed (sha256 %s -> %s)", p.Name(), textsafe.Escape(gitformat.Short(a.SHA256)), gitformat.Short(p.SHA256)))
		}
	}
	for _, a := range rec.Patches[min(len(patches), len(rec.Patches)):] {
		reasons = append(reasons, fmt.Sprintf("patch %s was removed from the series", textsafe.Escape(a.File)))
	}
	return reasons
}

// removeStaleStaging deletes what a killed apply left beside out: its
// staging folder, a whole tree, that no other run would ever remove.
func removeStaleStaging(out string, notice func(format string, args ...any)) error {
	removed, err := outdir.RemoveStale(out)
	if len(removed) > 0 && notice != nil {
		notice("removed %d staging folder(s) an interrupted apply left beside %s", len(removed), out)
	}
	return err
}

// repairPacks tidies the packs of out after a run killed while writing
// one; go-git cannot read a tree whose pack lacks its index.
// Only a tree apply made is touched: a folder with no apply record is
// refused later, as it is.
func repairPacks(out string, notice func(format string, args ...any)) error {
	if fi, err := os.Stat(filepath.Join(out, ".git", RecordFile)); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	done, err := gitstore.RepairPacks(filepath.Join(out, ".git"))
	if len(done) > 0 && notice != nil {
		notice("repaired the packs an interrupted apply left in %s: %s", out, strings.Join(done, ", "))
	}
	return err
}

// removeGitLeftovers removes the temporary files a run killed while
// replacing a file of out's .git left there: the index, the re-apply
// journal. A kill after the temporary file is made and before it is
// renamed leaves it under a name drawn at random that no later write
// replaces, so only its pattern finds it (atomicfile.IsTemp). Only a tree
// apply made is touched, as in repairPacks.
func removeGitLeftovers(out string, notice func(format string, args ...any)) error {
	gitDir := filepath.Join(out, ".git")
	if fi, err := os.Stat(filepath.Join(gitDir, RecordFile)); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	var removed []string
	for _, dir := range []string{gitDir, filepath.Dir(filepath.Join(gitDir, RecordFile))} {
		r, err := atomicfile.RemoveLeftovers(dir)
		removed = append(removed, r...)
		if err != nil {
			return fmt.Errorf("remove what an interrupted apply left in %s: %w", dir, err)
		}
	}
	if len(removed) > 0 && notice != nil {
		notice("removed %d temporary file(s) an interrupted apply left in %s", len(removed), gitDir)
	}
	return nil
}

// removeLeftovers removes the temporary files a run killed while
// rewriting files of out in place left beside them, which the scan of the
// work tree found (guard.LocalChanges.Leftovers): they are apply's, not
// untracked files of the user's to keep or to refuse a re-apply for.
func removeLeftovers(out string, local *guard.LocalChanges, notice func(format string, args ...any)) error {
	if len(local.Leftovers) == 0 {
		return nil
	}
	n, err := guard.RemoveLeftovers(out, local)
	if n > 0 && notice != nil {
		notice("removed %d temporary file(s) an interrupted apply left in %s", n, out)
	}
	return err
}

// SeriesChanges explains how the recipe's series differs from the one
// the record says a tree was applied from; empty means it is current.
func SeriesChanges(r *recipe.Recipe, patches []*Patch, rec *Record) []string {
	return seriesChanges(r, patches, rec)
}
