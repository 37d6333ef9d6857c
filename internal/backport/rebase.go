package backport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/diff3"
	"github.com/epp-build/epp-build/internal/dirswap"
	"github.com/epp-build/epp-build/internal/export"
	"github.com/epp-build/epp-build/internal/gitstore"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Outcome classifies what happened to one patch of a rebase.
type Outcome string

const (
	Clean    Outcome = "applied"
	AtOffset Outcome = "applied at an offset"
	Upstream Outcome = "already upstream (dropped)"
	Merged   Outcome = "applied by three-way merge"
	Resolved Outcome = "conflict resolved by hand"
	// Emptied is a stop resolved by dropping what the patch still
	// changed (its .rej files deleted): nothing is left to commit.
	Emptied Outcome = "resolved to no change (dropped)"
	Skipped Outcome = "skipped"
)

// Step is one patch's line in the rebase report. Commit is what the patch
// became in the work tree ("" when it was dropped or skipped).
type Step struct {
	Patch   string            `json:"patch"`
	Outcome Outcome           `json:"outcome"`
	Offsets []patchset.Offset `json:"offsets,omitempty"`
	Commit  string            `json:"commit,omitempty"`
}

// CanStart checks, before anything is fetched, that a rebase of r into as
// (or over r) in dir can start.
func CanStart(r *recipe.Recipe, as, dir string) error {
	if as == "" && r.Extends != "" {
		return &UsageError{fmt.Errorf("%s extends %s: rebase it into a new version with --as (its series becomes standalone)", r.Version, r.Extends)}
	}
	if _, err := os.Stat(dir); err == nil {
		return &UsageError{fmt.Errorf("%s exists: a rebase in progress? use --continue, --skip or --abort, or choose another --dir", dir)}
	}
	if as != "" {
		if !validVersion(as) {
			return &UsageError{fmt.Errorf("--as %q: a version is a plain folder name such as v1.5.0", as)}
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(r.Dir), as)); err == nil {
			return &UsageError{fmt.Errorf("--as %s: version %s exists already (%s); choose another name", as, as, filepath.Join(filepath.Dir(r.Dir), as))}
		}
	}
	return nil
}

// Materializer fetches the upstream pin u and makes dst a work tree at it.
// It returns the pin as the new recipe records it: u with a module hash
// it left empty computed from the fetched tree.
type Materializer func(ctx context.Context, u recipe.Upstream, dst string) (recipe.Upstream, error)

// Start begins rebasing r's series onto the pin u in dir (which must not
// exist): the upstream is materialized there and the patches replayed one
// by one. It returns the finished steps, or a *ConflictStop.
//
// With x, its command runs in the work tree after each patch (or once at
// the end) and a failure stops the rebase (*ExecStop).
func Start(ctx context.Context, r *recipe.Recipe, u recipe.Upstream, as, dir string, materialize Materializer, log io.Writer, x ...Exec) ([]Step, error) {
	return startWith(ctx, r, u, as, dir, materialize, nil, log, false, nil, x...)
}

// startWith is Start with the reader of the old pin's files for the
// merges' bases (files; nil: the old pin is checked out for them), the
// type-check of the finished tree (verify; nil checks nothing) and
// whether --no-verify skips it.
func startWith(ctx context.Context, r *recipe.Recipe, u recipe.Upstream, as, dir string, materialize Materializer, files PinFiles, log io.Writer, noVerify bool, verify verifyFunc, x ...Exec) ([]Step, error) {
	if err := CanStart(r, as, dir); err != nil {
		return nil, err
	}
	u, err := materialize(ctx, u, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := markUpstream(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Absolute: --continue may run from another folder, and an --exec
	// command runs in the work tree.
	recipeDir, err := filepath.Abs(r.Dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	st := &state{Version: r.Version, As: as, Recipe: recipeDir, Upstream: u, From: pinName(r.Upstream), NoVerify: noVerify, verify: verify}
	if len(x) > 0 && x[0].Command != "" {
		st.Exec = &x[0]
		if err := st.Exec.seal(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	keep := filepath.Join(dir, ".git", "epp-build", "rebase")
	if err := os.MkdirAll(keep, 0o755); err != nil {
		return nil, err
	}
	// The patches are copied into the work tree so later edits to the
	// recipe folder cannot change a rebase under way.
	for _, sp := range r.Series {
		data, err := inputfile.ReadFile(sp.Path, "", inputfile.PatchLimit())
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(keep, sp.Name), data, 0o644); err != nil {
			return nil, err
		}
		st.Patches = append(st.Patches, sp.Name)
	}
	return run(ctx, dir, st, log, &oldPin{pin: r.Upstream, materialize: materialize, files: files})
}

// Continue goes on after the user fixed a conflict: their changes (or
// their own commit) stand in for the patch. It refuses while conflict
// markers are left, and when nothing at all was done for the patch.
func Continue(ctx context.Context, dir string, log io.Writer) ([]Step, error) {
	return continueWith(ctx, dir, "", log, nil, nil)
}

// continueWith is Continue with the C API staging of an --exec command,
// for the patches folder root ("" = the one the state names).
func continueWith(ctx context.Context, dir, root string, log io.Writer, stage StageCAPI, verify verifyFunc) ([]Step, error) {
	st, err := loadFor(dir, root)
	if err != nil {
		return nil, err
	}
	st.setStage(stage)
	st.setVerify(verify)
	if st.VerifyStopped {
		return continueVerify(ctx, dir, st, log)
	}
	if st.ExecStopped != "" {
		return continueExec(ctx, dir, st, log)
	}
	if st.Conflict == "" {
		return nil, fmt.Errorf("the rebase in %s is not stopped at a conflict", dir)
	}
	p, err := readPatch(dir, st.Conflict)
	if err != nil {
		return nil, err
	}
	if left, err := markersLeft(dir, st.Marked); err != nil {
		return nil, err
	} else if len(left) > 0 {
		return st.Steps, &ConflictStop{Dir: dir, Patch: st.Conflict, Err: &MarkersLeft{Files: left}, Marked: left}
	}
	head, changed, err := commitResolution(dir, p, st.StopHead)
	if err != nil {
		return nil, err
	}
	step := Step{Patch: st.Conflict, Outcome: Resolved, Commit: head}
	if !changed {
		// Deleting the .rej files is a resolution: the patch's change is
		// not wanted on the new upstream. Otherwise nothing was done.
		if !rejDeleted(dir, st.Marked) {
			return st.Steps, &ConflictStop{Dir: dir, Patch: st.Conflict, Err: errNothingChanged}
		}
		step = Step{Patch: st.Conflict, Outcome: Emptied}
	}
	st.Steps = append(st.Steps, step)
	fmt.Fprintf(log, "%s: %s\n", st.Conflict, step.Outcome)
	st.clearStop()
	if err := execAfterPatch(ctx, dir, st, log); err != nil {
		return st.Steps, err
	}
	return run(ctx, dir, st, log, nil)
}

// baseLabel names a merge's base: the old pin (unknown to a rebase
// started before it was recorded) with the patches before this one.
func baseLabel(from, patch string) string {
	if from == "" {
		return "base: the old pin and the patches before " + patch
	}
	return "base: " + from + " and the patches before " + patch
}

// rejDeleted reports whether the stop wrote .rej files and all are gone.
func rejDeleted(dir string, marked []string) bool {
	found := false
	for _, m := range marked {
		if !strings.HasSuffix(m, ".rej") {
			continue
		}
		found = true
		if _, err := os.Lstat(filepath.Join(dir, m)); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return found
}

func (st *state) clearStop() {
	st.Conflict, st.StopHead, st.Marked = "", "", nil
	st.Next++
}

// Skip drops the patch the rebase stopped at, with any edits made for it.
func Skip(ctx context.Context, dir string, log io.Writer) ([]Step, error) {
	return skipWith(ctx, dir, "", log, nil, nil)
}

// skipWith is Skip with the C API staging of an --exec command, for the
// patches folder root ("" = the one the state names).
func skipWith(ctx context.Context, dir, root string, log io.Writer, stage StageCAPI, verify verifyFunc) ([]Step, error) {
	st, err := loadFor(dir, root)
	if err != nil {
		return nil, err
	}
	st.setStage(stage)
	st.setVerify(verify)
	if st.VerifyStopped {
		return nil, &UsageError{fmt.Errorf("the rebase stopped at the type-check, after every patch: there is no patch to skip; fix the tree and --continue, or --abort")}
	}
	if st.ExecStopped != "" {
		return skipExec(ctx, dir, st, log)
	}
	if st.Conflict == "" {
		return nil, fmt.Errorf("the rebase in %s is not stopped at a conflict", dir)
	}
	if err := discardStop(dir); err != nil {
		return nil, err
	}
	st.Steps = append(st.Steps, Step{Patch: st.Conflict, Outcome: Skipped})
	fmt.Fprintf(log, "%s: %s\n", st.Conflict, Skipped)
	st.clearStop()
	return run(ctx, dir, st, log, nil)
}

// discardStop undoes what a stop left in dir (the merge's markers, .rej
// files, staged files) and any edits made since, back to HEAD: the state
// before the skipped patch, where the next one goes on. rebase --skip and
// pick --skip share it.
func discardStop(dir string) error {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	if err := wt.Reset(&git.ResetOptions{Mode: git.HardReset}); err != nil {
		return fmt.Errorf("discard the edits in %s: %w", dir, err)
	}
	if err := wt.Clean(&git.CleanOptions{Dir: true}); err != nil {
		return fmt.Errorf("remove the files the stop left in %s: %w", dir, err)
	}
	return nil
}

// Abort throws the rebase away: the work tree goes, the recipe folders
// were never touched.
func Abort(dir string) error { return abortIn(dir, "") }

// abortIn is Abort for the patches folder root ("" = the one the state
// names): a state that is not root's is refused, and dir kept.
func abortIn(dir, root string) error {
	if _, err := loadFor(dir, root); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// run replays the remaining patches and, when all are through, writes
// the new series. A patch that does not apply is merged three-way: a
// clean merge is committed, a conflict stops the rebase. from is set
// while no stop was made yet: the first stop fetches the old pin for the
// merges' bases.
func run(ctx context.Context, dir string, st *state, log io.Writer, from *oldPin) ([]Step, error) {
	for ; st.Next < len(st.Patches); st.Next++ {
		name := st.Patches[st.Next]
		p, err := readPatch(dir, name)
		if err != nil {
			return nil, err
		}
		one, err := patchset.NewSeries([]*patchset.Patch{p})
		if err != nil {
			return nil, err
		}
		res, err := patchset.ApplyToRepo(ctx, dir, one, patchset.Options{Branch: branch})
		if err == nil {
			applied := res.Patches[0]
			step := Step{Patch: name, Outcome: Clean, Offsets: applied.Offsets, Commit: applied.Commit}
			if len(step.Offsets) > 0 {
				step.Outcome = AtOffset
			}
			st.Steps = append(st.Steps, step)
			fmt.Fprintf(log, "%s: %s\n", name, step.Outcome)
			st.Next++
			if err := execAfterPatch(ctx, dir, st, log); err != nil {
				return st.Steps, err
			}
			st.Next--
			continue
		}
		var conflict *patchset.ConflictError
		var fileErr *patchset.FileError
		if !errors.As(err, &conflict) && !errors.As(err, &fileErr) {
			return nil, err
		}
		if done, rerr := patchset.AlreadyApplied(ctx, dir, p); rerr != nil {
			return nil, rerr
		} else if done {
			st.Steps = append(st.Steps, Step{Patch: name, Outcome: Upstream})
			fmt.Fprintf(log, "%s: %s\n", name, Upstream)
			continue
		}
		head, herr := headCommit(dir)
		if herr != nil {
			return nil, herr
		}
		// Saved before the merge is written: if writing it fails, the
		// rebase is still stopped at this patch and --skip or --abort work.
		st.Conflict, st.StopHead = name, head
		if err := save(dir, st); err != nil {
			return nil, err
		}
		if err := keepBases(ctx, dir, st, from, log); err != nil {
			return nil, err
		}
		m, merr := mergePatch(dir, p, rebaseBase(dir, name), diff3.Labels{
			Ours:   "upstream " + pinName(st.Upstream),
			Base:   baseLabel(st.From, name),
			Theirs: name,
		})
		if merr != nil {
			return nil, merr
		}
		if len(m.Marked) == 0 {
			var commit string
			var cerr error
			if st.Exec != nil {
				// What an earlier --exec run changed in tracked files
				// goes into the merge's commit, as a resolution's does.
				commit, _, cerr = commitResolution(dir, p, head)
			} else {
				commit, _, cerr = commitMerged(dir, p)
			}
			if cerr != nil {
				return nil, cerr
			}
			st.Steps = append(st.Steps, Step{Patch: name, Outcome: Merged, Commit: commit})
			fmt.Fprintf(log, "%s: %s\n", name, Merged)
			st.Conflict, st.StopHead = "", ""
			st.Next++
			if err := execAfterPatch(ctx, dir, st, log); err != nil {
				return st.Steps, err
			}
			st.Next--
			continue
		}
		st.Marked = m.Marked
		if err := save(dir, st); err != nil {
			return nil, err
		}
		return st.Steps, &ConflictStop{Dir: dir, Patch: name, Err: err, Marked: m.Marked}
	}
	if err := execAtFinish(ctx, dir, st, log); err != nil {
		return st.Steps, err
	}
	if err := verifyAtFinish(ctx, dir, st, log); err != nil {
		return st.Steps, err
	}
	if err := finish(dir, st, log); err != nil {
		return nil, err
	}
	if err := os.Remove(filepath.Join(dir, ".git", stateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return st.Steps, nil
}

// finish writes the rebased series: into a new version folder (--as) or
// over the version itself. The recipe keeps what the old one said
// (description, capi, generated with each patch's new name) and says
// where it went.
func finish(dir string, st *state, log io.Writer) error {
	if err := recordSteps(dir, st.Steps); err != nil {
		return err
	}
	patches, err := export.Series(dir)
	if err != nil {
		return err
	}
	target := targetDir(st)
	names := make([]string, len(patches))
	byCommit := map[string]string{}
	for i, p := range patches {
		names[i] = p.Name
		byCommit[p.Commit] = p.Name
	}
	rename := map[string]string{}
	for _, s := range st.Steps {
		if n, ok := byCommit[s.Commit]; ok && s.Commit != "" {
			rename[s.Patch] = n
		}
	}
	var rewritten recipe.RebaseResult
	// The series is written in a folder beside the version and put in
	// place by one rename (a new version, --as) or one exchange (over the
	// version): a kill leaves the old series or the new, and a failure no
	// half-made version (which would also block the next rebase --as).
	write := func(work string) error {
		if err := export.Write(work, patches); err != nil {
			return err
		}
		var err error
		if rewritten, err = recipe.RebasedRecipeAs(work, st.Upstream, names, rename, derivation(st)); err != nil {
			return fmt.Errorf("write the recipe of %s: %w", target, err)
		}
		return nil
	}
	if st.As != "" {
		err = dirswap.Create(target, 0o755, func(work string) error {
			data, err := inputfile.ReadFile(filepath.Join(st.Recipe, recipe.FileName), st.Recipe, inputfile.RecipeLimit())
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(work, recipe.FileName), data, 0o644); err != nil {
				return err
			}
			return write(work)
		})
	} else {
		err = dirswap.Replace(target, write)
	}
	if err != nil {
		return err
	}
	dropped := rewritten.Dropped
	for _, n := range rewritten.Notes {
		fmt.Fprintf(log, "notice: %s\n", n)
	}
	for _, g := range dropped {
		fmt.Fprintf(log, "generated folder %s left out of the recipe: its patch %s is no longer in the series\n", g.To, g.Patch)
	}
	fmt.Fprintf(log, "the rebased series (%d patches) is in %s\n", len(patches), target)
	return nil
}

// targetDir is the version folder the rebased series goes to.
func targetDir(st *state) string {
	if st.As != "" {
		return filepath.Join(filepath.Dir(st.Recipe), st.As)
	}
	return st.Recipe
}

// commitResolution commits the user's fix with the patch's author, date
// and message, unless they committed it themselves. It returns HEAD and
// whether anything was done since the stop at stopHead.
func commitResolution(dir string, p *patchset.Patch, stopHead string) (string, bool, error) {
	repo, wt, closeRepo, err := openWorktree(dir)
	if err != nil {
		return "", false, err
	}
	defer closeRepo()
	wt.Excludes = infoExcludes(dir) // an --exec command's outputs are not the fix
	status, err := wt.Status()
	if err != nil {
		return "", false, err
	}
	if !status.IsClean() {
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			return "", false, err
		}
		if _, err = wt.Commit(p.Header.Message()+"\n", patchCommit(p)); err != nil {
			return "", false, err
		}
	}
	head, err := repo.Head()
	if err != nil {
		return "", false, err
	}
	return head.Hash().String(), head.Hash().String() != stopHead, nil
}

// commitMerged commits a clean three-way merge as mergePatch staged it,
// with the patch's author, date and message: every file the merge wrote
// or removed is in the index already, so the work tree is not walked to
// find them. It returns HEAD and whether a commit was made (a merge that
// changes nothing makes none).
func commitMerged(dir string, p *patchset.Patch) (string, bool, error) {
	repo, wt, closeRepo, err := openWorktree(dir)
	if err != nil {
		return "", false, err
	}
	defer closeRepo()
	commit, err := wt.Commit(p.Header.Message()+"\n", patchCommit(p))
	if errors.Is(err, git.ErrEmptyCommit) {
		head, err := repo.Head()
		if err != nil {
			return "", false, err
		}
		return head.Hash().String(), false, nil
	}
	if err != nil {
		return "", false, err
	}
	return commit.String(), true, nil
}

// openWorktree opens the work tree dir to commit in. A status diffs the
// index against HEAD's whole tree: the packs stay open, not opened again
// for each tree read; closeRepo releases them.
func openWorktree(dir string) (*git.Repository, *git.Worktree, func(), error) {
	repo, closeRepo, err := gitstore.Open(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		closeRepo()
		return nil, nil, nil, err
	}
	return repo, wt, closeRepo, nil
}

// patchCommit is how a patch's change is committed: its author and date,
// epp-build as the committer, now.
func patchCommit(p *patchset.Patch) *git.CommitOptions {
	return &git.CommitOptions{
		Author:    &object.Signature{Name: p.Header.Author.Name, Email: p.Header.Author.Email, When: p.Header.AuthorDate},
		Committer: &object.Signature{Name: patchset.Committer, Email: patchset.CommitterEmail, When: time.Now()},
	}
}

// recordSteps writes the work tree's apply record from the steps, so the
// export at the end names each commit after the patch it came from.
func recordSteps(dir string, steps []Step) error {
	rec, err := patchset.ReadRecord(dir)
	if err != nil {
		return err
	}
	if rec == nil {
		rec = &patchset.Record{}
	}
	rec.Patches = nil
	for _, s := range steps {
		if s.Commit != "" {
			rec.Patches = append(rec.Patches, patchset.Applied{File: s.Patch, Commit: s.Commit})
			rec.Head = s.Commit
		}
	}
	return patchset.WriteRecord(dir, rec)
}

// branch is the work tree's branch while a rebase runs.
const branch = "epp-build/rebase"

// markUpstream marks the freshly materialized HEAD as the upstream base
// and puts it on the rebase branch, so a resolution committed before any
// patch applied still exports against the right base.
func markUpstream(dir string) error {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	name := plumbing.NewBranchReferenceName(branch)
	for _, ref := range []*plumbing.Reference{
		plumbing.NewHashReference(patchset.UpstreamRef, head.Hash()),
		plumbing.NewHashReference(name, head.Hash()),
		plumbing.NewSymbolicReference(plumbing.HEAD, name),
	} {
		if err := repo.Storer.SetReference(ref); err != nil {
			return fmt.Errorf("set %s in %s: %w", ref.Name(), dir, err)
		}
	}
	return nil
}

func headCommit(dir string) (string, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return "", err
	}
	head, err := repo.Head()
	if err != nil {
		return "", err
	}
	return head.Hash().String(), nil
}

func readPatch(dir, name string) (*patchset.Patch, error) {
	ps, err := patchset.ParseFile(filepath.Join(dir, ".git", "epp-build", "rebase", name), name)
	if err != nil {
		return nil, err
	}
	if len(ps) != 1 {
		return nil, fmt.Errorf("patch %s holds %d patches; rebase takes one patch per file (export the series first)", name, len(ps))
	}
	return ps[0], nil
}
