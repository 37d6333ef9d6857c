package review

import (
	"context"
	"fmt"
	"slices"

	"github.com/epp-build/epp-build/internal/recipe"
)

// LintRequest is the lint command's whole input.
type LintRequest struct {
	// Root is the patches folder; Versions the versions to lint, each of
	// which must be there (none: every version).
	Root     string
	Versions []string
	// CacheDir holds the fetched upstreams whose module hashes are
	// checked and the histories their module versions are checked against.
	CacheDir string
	// Upstream is the mirror the histories were fetched from ("" = each
	// recipe's repository).
	Upstream string
	// EachPatch applies each version and resolves every patch's imports in
	// the tree after it (lint --each-patch), fetching upstreams the cache
	// lacks; Notice reports a fetch's fallback.
	EachPatch bool
	Notice    func(format string, args ...any)
}

// RunLint runs every lint of the versions req names and returns the
// problems found, notices included, for the caller to render before
// LintFailure says whether they fail the command.
func RunLint(ctx context.Context, req LintRequest) ([]Problem, error) {
	all, err := recipe.Versions(req.Root)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	versions, err := lintScope(all, req.Versions)
	if err != nil {
		return nil, err
	}
	problems, err := LintVersions(req.Root, versions)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	hashes, err := LintVersionHashes(ctx, req.Root, req.CacheDir, versions)
	if err != nil {
		return nil, err
	}
	problems = append(problems, hashes...)
	problems = append(problems, LintVersionModuleVersions(ctx, req.Root, req.CacheDir, req.Upstream, versions)...)
	if req.EachPatch {
		each, err := eachPatchProblems(ctx, req.Root, versions, req.CacheDir, req.Notice)
		if err != nil {
			return nil, err
		}
		problems = append(problems, each...)
	}
	return problems, nil
}

// lintScope is the versions lint looks at: those asked for, each of which
// must exist, or all.
func lintScope(all, asked []string) ([]string, error) {
	if len(asked) == 0 {
		return all, nil
	}
	for _, v := range asked {
		if !slices.Contains(all, v) {
			return nil, &UsageError{Err: fmt.Errorf("--version %s: no such version (list them with: epp-build versions)", v)}
		}
	}
	return asked, nil
}

// LintFailure is the *LintError problems make lint end with, or nil when
// none of them fails it (notices do not).
func LintFailure(problems []Problem) error {
	n := Failures(problems)
	if n == 0 {
		return nil
	}
	return &LintError{Problems: n, Refused: Refused(problems), Mismatches: Mismatches(problems)}
}

// LintError is lint's finding. Refused counts the recipes that do not load
// at all, which make lint exit 4 as apply does for them, and Mismatches
// the pins their tree contradicts, exit 5 as for apply.
type LintError struct{ Problems, Refused, Mismatches int }

func (e *LintError) Error() string { return fmt.Sprintf("lint found %d problem(s)", e.Problems) }

// UsageError is a lint asked of versions or a folder that are not there.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }
