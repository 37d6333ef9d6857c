package backport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Verifier type-checks the finished work tree dir (the packages the
// series changes and their dependents) and says what it checked; an
// error that is not the tree's failure to compile (the go command
// missing, a module that cannot be fetched) is returned as it is.
type Verifier func(ctx context.Context, dir string) (string, error)

// CompileError is a Verifier's finding that the tree does not compile:
// the rebase stops at it (*VerifyStop) as at a conflict.
type CompileError interface {
	error
	// Place is "file:line" of the first error, relative to the tree.
	Place() string
}

// verifyFunc is a rebase command's verification: Rebase wraps the
// command's Verifier to record what it said. skip is --no-verify.
type verifyFunc func(ctx context.Context, dir string, skip bool) (string, error)

// notVerified is what a rebase started with --no-verify says it did.
const notVerified = "not type-checked (--no-verify): the new series may not compile; `epp-build check --compile` checks it"

// VerifyStop is a rebase stopped because the finished tree does not
// compile. Every patch is committed and the series is not written yet;
// --continue folds the edits made since into the last patch's commit and
// type-checks again.
type VerifyStop struct {
	Dir  string
	Last string // the patch the edits are folded into
	Err  error
}

func (e *VerifyStop) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rebase stopped: every patch applied, but %v\n", e.Err)
	fmt.Fprintf(&b, "next: fix the tree in %s (edits are folded into the last patch's commit, %s; or commit a fix yourself), then `epp-build rebase --continue`, which type-checks again; ", e.Dir, e.Last)
	b.WriteString("or `epp-build rebase --abort` to throw the rebase away (add `--dir " + e.Dir + "` when it is not the default work tree); ")
	b.WriteString("a rebase started with --no-verify skips this check")
	return b.String()
}

func (e *VerifyStop) Unwrap() error { return e.Err }

// CLIExitCode is 6: rebase stopped because the rebased tree does not
// compile, resumable as at a conflict.
func (e *VerifyStop) CLIExitCode() int { return 6 }

// verifyAtFinish type-checks the tree once every patch is through and
// before the series is written. A tree that does not compile stops the
// rebase, resumable.
func verifyAtFinish(ctx context.Context, dir string, st *state, log io.Writer) error {
	if st.verify == nil {
		return nil
	}
	if !st.NoVerify {
		// It can take minutes on a cold build cache: say what runs.
		fmt.Fprintln(log, "type-checking the rebased tree: the packages the series changes and those importing them (--no-verify skips it)")
	}
	said, err := st.verify(ctx, dir, st.NoVerify)
	if said != "" {
		fmt.Fprintln(log, said)
	}
	var bad CompileError
	if errors.As(err, &bad) {
		st.VerifyStopped = true
		if serr := save(dir, st); serr != nil {
			return serr
		}
		return &VerifyStop{Dir: dir, Last: lastCommitted(st), Err: err}
	}
	if err != nil {
		return fmt.Errorf("type-check the rebased tree in %s: %w", dir, err)
	}
	st.VerifyStopped = false
	return nil
}

// lastCommitted names the last patch with a commit, the one a fix is
// folded into.
func lastCommitted(st *state) string {
	for i := len(st.Steps) - 1; i >= 0; i-- {
		if st.Steps[i].Commit != "" {
			return st.Steps[i].Patch
		}
	}
	return "(none: commit the fix yourself)"
}

// continueVerify goes on from a stop at the type-check: edits made since
// are folded into the last patch's commit, and the check runs again.
func continueVerify(ctx context.Context, dir string, st *state, log io.Writer) ([]Step, error) {
	if err := amendEdits(dir, st); err != nil {
		return nil, err
	}
	return run(ctx, dir, st, log, nil)
}

func (st *state) setVerify(v verifyFunc) { st.verify = v }
