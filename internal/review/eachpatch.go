package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/typecheck"
)

// eachPatchProblems is lint --each-patch: each version applied in a
// temporary folder (its upstream from the cache or fetched, as check
// does), and every patch's Go imports of the upstream module resolved in
// the tree as it stands after that patch. A patch importing a package only
// a later patch adds does not compile on its own: a bisect, a `rebase
// --exec 'go vet ./...'` or a series cut short stops there.
func eachPatchProblems(ctx context.Context, root string, versions []string, cacheDir string, notice func(string, ...any)) ([]Problem, error) {
	opt := apply.Options{Fetcher: apply.Fetcher{Kind: source.Auto, CacheDir: cacheDir, Notice: notice}}
	var problems []Problem
	for _, v := range versions {
		r, err := recipe.LoadVersion(root, v)
		if err != nil {
			continue // reported by the lint of the recipes
		}
		found, err := importsEachPatch(ctx, r, opt)
		if err != nil {
			return nil, fmt.Errorf("lint --each-patch %s: %w", v, err)
		}
		for _, m := range found {
			problems = append(problems, Problem{Version: v, Patch: m.Patch,
				Message: fmt.Sprintf("%s:%d imports %s, which the tree does not have after this patch: the patch does not compile on its own", m.File, m.Line, m.Import)})
		}
	}
	return problems, nil
}

func importsEachPatch(ctx context.Context, r *recipe.Recipe, opt apply.Options) ([]typecheck.MissingImport, error) {
	tmp, err := os.MkdirTemp("", "epp-build-each-patch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res, err := apply.Recipe(ctx, r, filepath.Join(tmp, "tree"), opt)
	if err != nil {
		return nil, err
	}
	return typecheck.ImportsEachPatch(res.Dir)
}
