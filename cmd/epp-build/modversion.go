package main

import (
	"context"

	"github.com/epp-build/epp-build/internal/backport"
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
