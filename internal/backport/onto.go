package backport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/mod/module"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
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
	// Versions works out the module version of a commit from the
	// repository's history; nil leaves it to the module proxy.
	Versions ModuleVersions
}

// ModuleVersions is the module version the go command gives commit of
// module mod in repository, from its committer time and tag ancestry
// (source.CommitModuleVersion).
type ModuleVersions func(ctx context.Context, repository, mod, commit string) (source.CommitVersion, error)

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
	// The version of a commit is computed from the commit, not asked
	// for: a proxy answers only for what it was given (and refuses a
	// mirror's commit), and a version typed in may be made up.
	computed, tried := false, false
	if u.Module != "" && o.Versions != nil && !module.IsPseudoVersion(o.Ref) {
		tried = true
		commit := u.Commit
		var err error
		if commit == "" {
			commit, err = source.Resolve(ctx, from, o.Ref)
		}
		var v source.CommitVersion
		if err == nil {
			v, err = o.Versions(ctx, from, u.Module, commit)
		}
		switch {
		case err == nil:
			if err := checkGiven(o, v); err != nil {
				return recipe.Upstream{}, err
			}
			u.Commit, computed = commit, true
			if u.ModuleVersion == "" { // a version given is one of the commit's tags, or v.Version
				u.ModuleVersion = v.Version
			}
			if commit != o.Ref {
				fmt.Fprintf(log, "%s resolves to %s\n", o.Ref, commit)
			}
			fmt.Fprintf(log, "%s is %s@%s (%s)\n", o.Ref, u.Module, v.Version, versionFacts(v))
		case ctx.Err() != nil:
			return recipe.Upstream{}, ctx.Err()
		default:
			fmt.Fprintf(log, "notice: the module version of %s cannot be worked out from %s (%v)\n", o.Ref, redact.URL(from), err)
		}
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
	if u.ModuleVersion != "" && !computed && o.Versions != nil {
		// A version the proxy answered, or one given with a
		// pseudo-version --onto, is checked against the commit it names
		// when the repository can say.
		if tried {
			fmt.Fprintf(log, "notice: %s@%s is not checked against commit %s: its history could not be read\n", u.Module, u.ModuleVersion, gitformat.Short(u.Commit))
			return u, nil
		}
		v, err := o.Versions(ctx, from, u.Module, u.Commit)
		if err != nil {
			if ctx.Err() != nil {
				return recipe.Upstream{}, ctx.Err()
			}
			fmt.Fprintf(log, "notice: %s@%s is not checked against commit %s: %v\n", u.Module, u.ModuleVersion, gitformat.Short(u.Commit), err)
			return u, nil
		}
		if err := checkGiven(Onto{ModuleVersion: u.ModuleVersion}, v); err != nil {
			return recipe.Upstream{}, err
		}
	}
	return u, nil
}

// checkGiven refuses an --onto-module-version that is not the commit's.
func checkGiven(o Onto, v source.CommitVersion) error {
	if o.ModuleVersion == "" {
		return nil
	}
	err := source.CheckModuleVersion(o.ModuleVersion, v)
	var bad *source.ModuleVersionError
	if errors.As(err, &bad) {
		bad.Fix = "give --onto-module-version " + v.Version + ", or leave it out: it is worked out from the commit"
	}
	return err
}

// versionFacts says what a computed version is made of.
func versionFacts(v source.CommitVersion) string {
	if len(v.Tags) > 0 {
		return "the commit's tag"
	}
	base := "no tag in its history"
	if v.Base != "" {
		base = "after tag " + v.Base
	}
	return fmt.Sprintf("computed: committed %s UTC, %s", v.Time.Format(time.DateTime), base)
}

// derivation is what a rebase --as says its new version is: the version
// it came from, in place of the release that one reproduced.
func derivation(st *state) *recipe.Derivation {
	if st.As == "" {
		return nil
	}
	return &recipe.Derivation{Version: st.As, From: st.Version}
}
