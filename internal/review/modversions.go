package review

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// LintVersionModuleVersions checks each named recipe's
// upstream.moduleVersion against its commit: the version the go command
// gives the commit, from its committer time and tag ancestry in the
// upstream history the cache under cacheDir ("" = the user cache folder)
// holds: the history of mirror when it is not "" (check and rebase with
// --upstream keep the mirror's), else of the recipe's repository. lint
// does not fetch: a commit whose history is not cached (check and rebase
// fetch it) gets a notice saying the version was not checked.
func LintVersionModuleVersions(ctx context.Context, root, cacheDir, mirror string, versions []string) []Problem {
	var out []Problem
	for _, name := range versions {
		r, err := recipe.LoadVersion(root, name)
		if err != nil || r.Upstream.ModuleVersion == "" {
			continue // a recipe that does not load is Lint's finding
		}
		u := r.Upstream
		from := u.Repository
		if mirror != "" {
			from = mirror
		}
		v, ok, err := source.CommitModuleVersion(ctx, cacheDir, from, u.Module, u.Commit, false)
		if err != nil || !ok {
			why := "its history is not in the cache"
			if err != nil {
				why = err.Error()
			}
			out = append(out, Problem{Version: name, Notice: true,
				Message: fmt.Sprintf("upstream.moduleVersion %s is not checked against commit %s: %s (`epp-build check --version %s` fetches it)", u.ModuleVersion, gitformat.Short(u.Commit), why, name)})
			continue
		}
		err = source.CheckModuleVersion(u.ModuleVersion, v)
		var bad *source.ModuleVersionError
		if errors.As(err, &bad) {
			bad.Fix = "set upstream.moduleVersion to " + v.Version + " in " + filepath.Join(r.Dir, recipe.FileName)
			out = append(out, Problem{Version: name, Message: bad.Error(), Mismatch: true})
		}
	}
	return out
}
