package backport

import (
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/mod/module"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// Onto says which upstream a rebase goes onto: Ref alone is enough, the
// other fields override what would be looked up.
type Onto struct {
	Ref           string
	Commit        string
	ModuleVersion string
	ModuleHash    string
	// Repository is a mirror of the recipe's upstream repository (the
	// --upstream flag): refs are looked up there, but the new recipe
	// keeps naming the canonical repository, which is what others fetch.
	Repository string
}

// UsageError is an Onto that cannot be right whatever the upstream says.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// NewPin makes the pin of the new upstream from the old one: Ref's commit
// from the repository (or, when git cannot say, from the module proxy), and
// for a recipe with a module, the module version the proxy has for Ref and
// its h1: hash. A module version given without its hash leaves ModuleHash
// empty: the materializer computes it from the fetched tree. A proxy whose version was built from another commit than
// the repository names is refused (a *source.MismatchError).
func NewPin(ctx context.Context, old recipe.Upstream, o Onto, log io.Writer) (recipe.Upstream, error) {
	if o.ModuleHash != "" && o.ModuleVersion == "" {
		return recipe.Upstream{}, &UsageError{fmt.Errorf("--onto-module-hash needs --onto-module-version: the hash is of that version's zip")}
	}
	u := old
	u.Ref, u.Commit, u.ModuleVersion, u.ModuleHash = o.Ref, o.Commit, o.ModuleVersion, o.ModuleHash
	if u.ModuleVersion != "" && u.Module == "" {
		return recipe.Upstream{}, &UsageError{fmt.Errorf("--onto-module-version: the recipe has no upstream.module to give a version of")}
	}
	from := u.Repository
	if o.Repository != "" {
		from = o.Repository // with its credentials, for the lookup only
	}
	var fromProxy string
	if u.Module != "" && u.ModuleVersion == "" {
		mv, err := source.ResolveModule(ctx, u.Module, o.Ref)
		if err != nil && source.NotOnProxy(err) && u.Commit == "" && !module.IsPseudoVersion(o.Ref) {
			// The proxy may know the commit by its full hash, or by the
			// commit a branch or short hash names in the repository.
			if commit, gerr := source.Resolve(ctx, from, o.Ref); gerr == nil && commit != o.Ref {
				fmt.Fprintf(log, "%s is not on the module proxy; the repository resolves it to %s\n", o.Ref, commit)
				if mv, err = source.ResolveModule(ctx, u.Module, commit); err == nil {
					u.Commit = commit
				}
			}
		}
		if err != nil {
			return recipe.Upstream{}, fmt.Errorf("look %s up on the module proxy (the recipe pins upstream.module %s): %w; give --onto-module-version (its hash is computed from the fetched tree), or point GOPROXY at a proxy that has it", o.Ref, u.Module, err)
		}
		u.ModuleVersion, u.ModuleHash, fromProxy = mv.Version, mv.Hash, mv.Commit
		fmt.Fprintf(log, "%s is %s@%s (%s) on the module proxy\n", o.Ref, u.Module, mv.Version, mv.Hash)
	}
	if module.IsPseudoVersion(o.Ref) && u.Commit == "" {
		// A pseudo-version (how a go.mod, such as Dynamo's, names the
		// upstream) is no git ref: the pin is the commit the proxy says it
		// was built from, which must be the one the version names.
		rev, _ := module.PseudoVersionRev(o.Ref)
		if u.Module == "" || fromProxy == "" || !strings.HasPrefix(fromProxy, rev) {
			return recipe.Upstream{}, &UsageError{fmt.Errorf("--onto %s is a module pseudo-version, but the module proxy named no commit %s... for it: give the commit as --onto", o.Ref, rev)}
		}
		u.Ref, u.Commit = fromProxy, fromProxy
		fmt.Fprintf(log, "%s is commit %s\n", o.Ref, u.Commit)
	}
	if u.Commit == "" {
		commit, err := source.Resolve(ctx, from, o.Ref)
		switch {
		case err == nil:
			u.Commit = commit
		case fromProxy != "":
			fmt.Fprintf(log, "%s could not be resolved in %s (%v); the module proxy says it is commit %s\n", o.Ref, u.Repository, err, fromProxy)
			u.Commit = fromProxy
		default:
			return recipe.Upstream{}, fmt.Errorf("%w (or give the commit with --onto-commit)", err)
		}
		if u.Commit != o.Ref {
			fmt.Fprintf(log, "%s resolves to %s\n", o.Ref, u.Commit)
		}
	}
	if u.Ref != u.Commit && source.IsShortHash(u.Ref) && strings.HasPrefix(u.Commit, u.Ref) {
		// A short hash is no ref to fetch: the pin names the whole commit.
		u.Ref = u.Commit
	}
	if fromProxy != "" && fromProxy != u.Commit {
		return recipe.Upstream{}, fmt.Errorf("the module proxy and %s disagree about %s: %w", u.Repository, o.Ref,
			&source.MismatchError{Ref: u.Module + "@" + u.ModuleVersion, Want: u.Commit, Got: fromProxy, Repository: "the module proxy"})
	}
	return u, nil
}
