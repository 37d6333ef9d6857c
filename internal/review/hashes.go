package review

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// LintHashes checks each recipe's upstream.moduleHash against the module
// zip of its pinned tree, for the trees the cache under cacheDir ("" =
// the user cache folder) holds: lint does not fetch, so a pin not yet
// fetched (by apply, check or rebase, which all check the hash) is
// skipped. A recipe that does not load is Lint's finding, not this one's.
func LintHashes(ctx context.Context, root, cacheDir string) ([]Problem, error) {
	versions, err := recipe.Versions(root)
	if err != nil {
		return nil, err
	}
	return LintVersionHashes(ctx, root, cacheDir, versions)
}

// LintVersionHashes is LintHashes for the named versions only.
func LintVersionHashes(ctx context.Context, root, cacheDir string, versions []string) ([]Problem, error) {
	var out []Problem
	for _, v := range versions {
		r, err := recipe.LoadVersion(root, v)
		if err != nil || r.Upstream.ModuleHash == "" {
			continue
		}
		got, ok, err := source.CachedModuleHash(ctx, cacheDir, r.Upstream)
		if err != nil {
			return nil, fmt.Errorf("recipe %s: %w", v, err)
		}
		if ok && got != r.Upstream.ModuleHash {
			mh := &source.ModuleHashError{Module: r.Upstream.Module + "@" + r.Upstream.ModuleVersion,
				Want: r.Upstream.ModuleHash, Got: got, Commit: r.Upstream.Commit, Recipe: v + " (" + filepath.Join(r.Dir, recipe.FileName) + ")"}
			out = append(out, Problem{Version: v, Message: mh.Error(), Mismatch: true})
		}
	}
	return out, nil
}

// Mismatches counts the problems that are pins their tree contradicts.
func Mismatches(problems []Problem) int {
	n := 0
	for _, p := range problems {
		if p.Mismatch {
			n++
		}
	}
	return n
}
