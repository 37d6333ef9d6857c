package backport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Exec is rebase --exec: a shell command run in the work tree after each
// patch is committed (or once, when the series is through, with AtEnd),
// as `git rebase --exec` does. The first failure stops the rebase.
type Exec struct {
	Command string `json:"command"`
	AtEnd   bool   `json:"atEnd,omitempty"`
	// CAPI stages the C API library into the work tree before each run
	// (rebase --capi / --capi-src), so the command can link the binding:
	// CAPISrc is the local source ("" = the recipe's pin).
	CAPI    bool   `json:"capi,omitempty"`
	CAPISrc string `json:"capiSrc,omitempty"`
	// Seal is the MAC a start records of the fields above, checked on
	// every load (execseal.go).
	Seal string `json:"seal,omitempty"`
	// Stage does the staging (apply's), given by the command on every
	// run; nil stages nothing.
	Stage StageCAPI `json:"-"`
}

// StageCAPI stages the C API library of the recipe in recipeDir into the
// work tree tree, built from src ("" = the recipe's pin); it says what it
// staged, or returns "" when the tree has no binding yet.
type StageCAPI func(ctx context.Context, recipeDir, tree, src string, log io.Writer) (string, error)

// execAtEnd is the ExecStop.After of a stop of the end-of-series command.
const execAtEnd = "(end of series)"

// ExecStop is a rebase stopped because the --exec command failed. The
// patch it ran after is committed; --continue runs the command again
// (after folding any edits into that commit), --skip drops the patch,
// --abort throws the rebase away.
type ExecStop struct {
	Dir     string
	After   string // the patch the command ran after, or execAtEnd
	Command string
	Err     error // the command's failure (an *exec.ExitError for a non-zero exit)
}

func (e *ExecStop) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rebase stopped: --exec %q failed after %s: %v\n", e.Command, e.After, e.Err)
	fmt.Fprintf(&b, "next: fix the tree in %s (edits to tracked files and new files are folded into the last patch's commit; files the command left are not), then `epp-build rebase --continue`, which runs the command again; ", e.Dir)
	if e.After != execAtEnd {
		b.WriteString("or `epp-build rebase --skip` to drop the patch; ")
	}
	b.WriteString("or `epp-build rebase --abort` to throw the rebase away (add `--dir " + e.Dir + "` when it is not the default work tree)")
	return b.String()
}

func (e *ExecStop) Unwrap() error { return e.Err }

// ExitCode is the command's exit status, -1 when it did not run or was
// killed by a signal.
func (e *ExecStop) ExitCode() int {
	var x *exec.ExitError
	if errors.As(e.Err, &x) {
		return x.ExitCode()
	}
	return -1
}

// runExec runs the --exec command in dir; its output goes to log. Files it
// leaves that git would list as untracked are added to the work tree's
// .git/info/exclude, so a later --continue never records a build output
// as part of a patch.
//
// The command's environment says which recipe is being rebased:
// EPP_BUILD_RECIPE is its folder and, unless set already,
// EPP_BUILD_PATCHES the folder of the versions, so
// `epp-build apply --recipe "$EPP_BUILD_RECIPE" --capi-only --out .` works.
func runExec(ctx context.Context, dir string, st *state, after string, log io.Writer) error {
	x := st.Exec
	before, err := untracked(dir)
	if err != nil {
		return err
	}
	if x.CAPI && x.Stage != nil {
		said, err := x.Stage(ctx, st.Recipe, dir, x.CAPISrc, log)
		if err != nil {
			// A stop like the command's own failure: fixed, --continue goes on.
			return &ExecStop{Dir: dir, After: after, Command: x.Command, Err: fmt.Errorf("stage the C API before the command: %w", err)}
		}
		if said != "" {
			fmt.Fprintln(log, said)
		}
	}
	fmt.Fprintf(log, "exec after %s: %s\n", after, x.Command)
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", x.Command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "EPP_BUILD_RECIPE="+st.Recipe, "EPP_BUILD_REBASE_AFTER="+after)
	if os.Getenv("EPP_BUILD_PATCHES") == "" {
		cmd.Env = append(cmd.Env, "EPP_BUILD_PATCHES="+filepath.Dir(st.Recipe))
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.WaitDelay = 5 * time.Second // a child holding the output open must not hang the rebase
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	after2, err := untracked(dir)
	if err != nil {
		return err
	}
	var left []string
	for p := range after2 {
		if !before[p] {
			left = append(left, p)
		}
	}
	if err := excludeOutputs(dir, left); err != nil {
		return err
	}
	if runErr != nil {
		return &ExecStop{Dir: dir, After: after, Command: x.Command, Err: runErr}
	}
	return nil
}

// untracked lists the files git would call untracked (not ignored).
func untracked(dir string) (map[string]bool, error) {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	wt.Excludes = infoExcludes(dir)
	status, err := wt.Status()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for p, s := range status {
		if s.Worktree == git.Untracked {
			out[p] = true
		}
	}
	return out, nil
}

// excludeOutputs appends paths to dir's .git/info/exclude, anchored and
// with glob characters escaped, so each names exactly that file.
func excludeOutputs(dir string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	sort.Strings(paths)
	name := filepath.Join(dir, ".git", "info", "exclude")
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# left by rebase --exec (epp-build)\n")
	for _, p := range paths {
		b.WriteString("/" + escapeGlob(filepath.ToSlash(p)) + "\n")
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\!# `, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// execAfterPatch runs the command after the patch just done (st.Next-1
// is done and counted). A failure is saved as the stop.
func execAfterPatch(ctx context.Context, dir string, st *state, log io.Writer) error {
	if st.Exec == nil || st.Exec.AtEnd || len(st.Steps) == 0 || st.Steps[len(st.Steps)-1].Commit == "" {
		return nil // nothing was committed for the patch: nothing new to run on
	}
	return execStep(ctx, dir, st, st.Patches[st.Next-1], log)
}

// execAtFinish runs an --exec-at-end command once, when every patch is
// through and before the series is written.
func execAtFinish(ctx context.Context, dir string, st *state, log io.Writer) error {
	if st.Exec == nil || !st.Exec.AtEnd || st.ExecDone {
		return nil
	}
	if err := execStep(ctx, dir, st, execAtEnd, log); err != nil {
		return err
	}
	st.ExecDone = true
	return nil
}

func execStep(ctx context.Context, dir string, st *state, after string, log io.Writer) error {
	err := runExec(ctx, dir, st, after, log)
	var stop *ExecStop
	if errors.As(err, &stop) {
		st.ExecStopped = after
		if serr := save(dir, st); serr != nil {
			return serr
		}
	}
	return err
}

// continueExec goes on from an --exec stop: edits made since are folded
// into the commit of the patch the command ran after, the command runs
// again, and the rebase goes on when it passes.
func continueExec(ctx context.Context, dir string, st *state, log io.Writer) ([]Step, error) {
	if err := amendEdits(dir, st); err != nil {
		return nil, err
	}
	after := st.ExecStopped
	if err := runExec(ctx, dir, st, after, log); err != nil {
		return st.Steps, err
	}
	st.ExecStopped = ""
	if after == execAtEnd {
		st.ExecDone = true
	}
	return run(ctx, dir, st, log, nil)
}

// skipExec drops the patch the failed command ran after: the tree goes
// back to the commit before it.
func skipExec(ctx context.Context, dir string, st *state, log io.Writer) ([]Step, error) {
	if st.ExecStopped == execAtEnd {
		return nil, &UsageError{fmt.Errorf("the --exec command failed at the end of the series, after every patch: there is no patch to skip; fix the tree and --continue, or --abort")}
	}
	last := &st.Steps[len(st.Steps)-1]
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return nil, err
	}
	head, err := repo.Head()
	if err != nil {
		return nil, err
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, err
	}
	if c.Hash.String() != last.Commit || c.NumParents() != 1 {
		return nil, fmt.Errorf("HEAD of %s is no longer the commit of %s (%s): reset it there, or --abort", dir, last.Patch, last.Commit)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	if err := wt.Reset(&git.ResetOptions{Commit: c.ParentHashes[0], Mode: git.HardReset}); err != nil {
		return nil, fmt.Errorf("drop %s in %s: %w", last.Patch, dir, err)
	}
	last.Outcome, last.Commit, last.Offsets = Skipped, "", nil
	fmt.Fprintf(log, "%s: %s\n", last.Patch, Skipped)
	st.ExecStopped = ""
	return run(ctx, dir, st, log, nil)
}

// amendEdits folds what changed in the work tree since the stop (tracked
// edits, new files not excluded as the command's outputs) into HEAD, the
// commit of the patch the command ran after, and records the new commit.
func amendEdits(dir string, st *state) error {
	repo, err := git.PlainOpen(dir)
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	wt.Excludes = infoExcludes(dir)
	status, err := wt.Status()
	if err != nil {
		return err
	}
	if status.IsClean() {
		return nil
	}
	head, err := repo.Head()
	if err != nil {
		return err
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return err
	}
	if c.Hash == patchsetUpstream(repo) {
		return fmt.Errorf("HEAD of %s is the upstream base: commit your fix yourself before --continue", dir)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return err
	}
	amended, err := wt.Commit(c.Message, &git.CommitOptions{
		Amend:     true,
		Author:    &c.Author,
		Committer: &object.Signature{Name: patchset.Committer, Email: patchset.CommitterEmail, When: time.Now()},
	})
	if err != nil {
		return fmt.Errorf("fold the edits in %s into %s: %w", dir, c.Hash, err)
	}
	for i := range st.Steps {
		if st.Steps[i].Commit == c.Hash.String() {
			st.Steps[i].Commit = amended.String()
		}
	}
	return save(dir, st)
}

// patchsetUpstream is the upstream base commit of the work tree (zero
// when the ref is missing).
func patchsetUpstream(repo *git.Repository) plumbing.Hash {
	ref, err := repo.Reference(patchset.UpstreamRef, true)
	if err != nil {
		return plumbing.ZeroHash
	}
	return ref.Hash()
}

// infoExcludes are the patterns of dir's .git/info/exclude (where the
// --exec command's outputs are listed), for a go-git work tree to honour:
// go-git itself does not read that file.
func infoExcludes(dir string) []gitignore.Pattern {
	data, err := inputfile.ReadFile(filepath.Join(dir, ".git", "info", "exclude"), "", inputfile.StateLimit(".git/info/exclude"))
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#") {
			ps = append(ps, gitignore.ParsePattern(line, nil))
		}
	}
	return ps
}
