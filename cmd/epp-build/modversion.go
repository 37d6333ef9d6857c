package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/backport"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/source"
)

// moduleVersions wires the source stage's history for rebase: a commit's
// module version, worked out from its committer time and tag ancestry,
// fetching what the cache lacks.
func moduleVersions(f *recipeFlags) backport.ModuleVersions {
	return func(ctx context.Context, repository, mod, commit string) (source.CommitVersion, error) {
		v, _, err := source.CommitModuleVersion(ctx, f.cacheDir, repository, mod, commit, true)
		return v, err
	}
}

// checkModuleVersion refuses a recipe whose upstream.moduleVersion is not
// its commit's (exit 5), as check does; a commit whose history cannot be
// fetched leaves the version unchecked, and the notice says so.
func checkModuleVersion(ctx context.Context, f *recipeFlags, r *recipe.Recipe, log io.Writer) error {
	u := r.Upstream
	if u.Module == "" || u.ModuleVersion == "" {
		return nil
	}
	from := u.Repository
	if f.upstream != "" {
		from = f.upstream // a mirror, for the lookup only
	}
	v, _, err := source.CommitModuleVersion(ctx, f.cacheDir, from, u.Module, u.Commit, true)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(log, "notice: %s: upstream.moduleVersion %s is not checked against commit %s: its history cannot be read from %s (%v)\n",
			r.Version, u.ModuleVersion, u.Commit, redact.URL(from), err)
		return nil
	}
	err = source.CheckModuleVersion(u.ModuleVersion, v)
	var bad *source.ModuleVersionError
	if errors.As(err, &bad) {
		bad.Fix = fmt.Sprintf("set upstream.moduleVersion to %s in %s, or upstream.commit to the commit %s names",
			v.Version, filepath.Join(r.Dir, recipe.FileName), u.ModuleVersion)
		return fmt.Errorf("recipe %s: %w", r.Version, err)
	}
	return err
}
