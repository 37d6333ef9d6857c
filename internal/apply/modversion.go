package apply

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/source"
)

// CheckModuleVersion refuses a recipe whose upstream.moduleVersion is not
// the one the go command gives its commit (a *source.ModuleVersionError,
// exit 5), reading the commit's time and tag ancestry from the history
// cache, fetched from f.Upstream when set (a mirror, for the lookup only).
// A commit whose history cannot be fetched leaves the version unchecked,
// and a notice says so.
func (f Fetcher) CheckModuleVersion(ctx context.Context, r *recipe.Recipe) error {
	u := r.Upstream
	if u.Module == "" || u.ModuleVersion == "" {
		return nil
	}
	from := u.Repository
	if f.Upstream != "" {
		from = f.Upstream
	}
	v, _, err := source.CommitModuleVersion(ctx, f.CacheDir, from, u.Module, u.Commit, true)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if f.Notice != nil {
			f.Notice("%s: upstream.moduleVersion %s is not checked against commit %s: its history cannot be read from %s (%v)",
				r.Version, u.ModuleVersion, u.Commit, redact.URL(from), err)
		}
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
