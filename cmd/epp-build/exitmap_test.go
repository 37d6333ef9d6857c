package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/cheader"
	"github.com/epp-build/epp-build/internal/compile"
	"github.com/epp-build/epp-build/internal/guard"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/pipeline"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/review"
	"github.com/epp-build/epp-build/internal/seriesedit"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/typecheck"
	"github.com/epp-build/epp-build/internal/vulns"
)

// Each typed error a stage returns ends the command with the code
// exitCodeDocs gives it, however deep a caller wrapped it.
func TestEveryTypedErrorHasItsExitCode(t *testing.T) {
	ctx := context.Background()
	for code, errs := range map[int][]error{
		2: {usageError{errors.New("x")}, &recipe.NotFoundError{}, &pipeline.OptionsError{}, &platform.UnsupportedError{},
			&backport.UsageError{Err: errors.New("x")}, &attest.KeyError{Err: errors.New("x")}, &attest.ReferenceError{Err: errors.New("x")},
			&compile.SystemError{}, &seriesedit.UsageError{Err: errors.New("x")}, &review.UsageError{Err: errors.New("x")}},
		3: {&patchset.ConflictError{}, &patchset.FileError{}},
		4: {&patchset.ParseError{Err: errors.New("x")}, &patchset.UnsafeError{}, &patchset.ExistingTreeError{}, &patchset.UntrackedInTheWayError{},
			&guard.LocalChangesError{}, &recipe.ValidationError{}, &inputfile.Error{}, &backport.StateError{Err: errors.New("x")},
			&vulns.VEXError{}, &review.LintError{Problems: 2, Refused: 1, Mismatches: 1}},
		5: {&source.MismatchError{}, &source.ModuleHashError{}, &cheader.MismatchError{}, &attest.VerifyError{}, &review.LintError{Problems: 1, Mismatches: 1}},
		6: {&apply.StaleError{}, &backport.ConflictStop{Err: errors.New("x")}, &backport.ExecStop{Err: &exec.ExitError{}},
			&backport.VerifyStop{Err: errors.New("x")}, &typecheck.Error{}},
		7:  {&review.LintError{Problems: 1}},
		8:  {&pipeline.PreflightError{}},
		9:  {&attest.NoSuchImageError{Err: errors.New("x")}},
		10: {&vulns.CalledError{}},
		1:  {errors.New("a network failure"), &exec.ExitError{}},
	} {
		for _, err := range errs {
			assert.Equal(t, code, exitCode(ctx, fmt.Errorf("outer: %w", err)), "%T", err)
		}
	}
	assert.Equal(t, 0, exitCode(ctx, nil))
	assert.Equal(t, 130, exitCode(ctx, fmt.Errorf("x: %w", context.Canceled)))
	// A stage's error inside a usage mistake is the usage mistake.
	assert.Equal(t, 2, exitCode(ctx, usageError{fmt.Errorf("--body-file: %w", &patchset.ConflictError{})}))
}
