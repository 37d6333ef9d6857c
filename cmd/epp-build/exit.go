package main

import (
	"context"
	"errors"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/build"
	"github.com/epp-build/epp-build/internal/cheader"
	"github.com/epp-build/epp-build/internal/compile"
	"github.com/epp-build/epp-build/internal/guard"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/typecheck"
	"github.com/epp-build/epp-build/internal/vulns"
)

// usageError marks a mistake in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitCode is the one place errors become the exit codes the README
// lists; stage packages say what went wrong through typed errors.
func exitCode(ctx context.Context, err error) int {
	var (
		usage       usageError
		unknown     *recipe.NotFoundError
		badOptions  *build.OptionsError
		badPlatform *platform.UnsupportedError
		stale       *apply.StaleError
		conflict    *patchset.ConflictError
		fileErr     *patchset.FileError
		parseErr    *patchset.ParseError
		unsafe      *patchset.UnsafeError
		existing    *patchset.ExistingTreeError
		inTheWay    *patchset.UntrackedInTheWayError
		local       *guard.LocalChangesError
		invalid     *recipe.ValidationError
		refused     *inputfile.Error
		mismatch    *source.MismatchError
		moduleHash  *source.ModuleHashError
		prototype   *cheader.MismatchError
		attestation *attest.VerifyError
		preflight   *build.PreflightError
		badKey      *attest.KeyError
		lint        lintError
		stop        *backport.ConflictStop
		execStop    *backport.ExecStop
		verifyStop  *backport.VerifyStop
		noCompile   *typecheck.Error
		rebaseUsage *backport.UsageError
		badState    *backport.StateError
		badRef      *attest.ReferenceError
		noImage     *attest.NoSuchImageError
		needsLinux  *compile.SystemError
		called      *vulns.CalledError
		badVEX      *vulns.VEXError
	)
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return 130
	case errors.As(err, &usage), errors.As(err, &unknown), errors.As(err, &badOptions), errors.As(err, &badPlatform),
		errors.As(err, &rebaseUsage), errors.As(err, &badKey), errors.As(err, &badRef), errors.As(err, &needsLinux):
		return 2
	case errors.As(err, &noImage):
		return 9
	case errors.As(err, &stop), errors.As(err, &execStop), errors.As(err, &verifyStop), errors.As(err, &noCompile):
		return 6
	case errors.As(err, &conflict), errors.As(err, &fileErr):
		return 3
	case errors.As(err, &parseErr), errors.As(err, &unsafe), errors.As(err, &existing), errors.As(err, &inTheWay), errors.As(err, &local), errors.As(err, &invalid),
		errors.As(err, &refused), errors.As(err, &badState), errors.As(err, &badVEX):
		return 4
	case errors.As(err, &mismatch), errors.As(err, &moduleHash), errors.As(err, &prototype), errors.As(err, &attestation):
		return 5
	case errors.As(err, &stale):
		return 6
	case errors.As(err, &preflight):
		return 8
	case errors.As(err, &called):
		return 10
	case errors.As(err, &lint) && lint.refused > 0:
		return 4
	case errors.As(err, &lint) && lint.mismatch > 0:
		return 5
	case errors.As(err, &lint):
		return 7
	}
	return 1
}
