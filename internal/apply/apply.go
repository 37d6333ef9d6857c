// Package apply is the apply stage as the commands run it: fetch a recipe's
// upstream (the source stage) and apply its series onto it (the patchset
// stage) in a folder, with progress. Regen is the same apply with the
// generated folders refreshed from their source, exported again: check
// compares that series with the committed one, regen writes it, and apply
// --regen writes it before applying. Each returns a value; render.go
// holds the commands' words for it.
package apply

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/gitformat"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Fetcher says where an upstream comes from and where the fetch reports.
type Fetcher struct {
	Kind     source.Kind
	Upstream string // a URL or folder instead of the recipe's; "" = the recipe's
	CacheDir string // "" = the user cache folder
	// Progress shows bytes and rate; nil shows nothing.
	Progress *progress.Reporter
	// Notice reports a fallback or a dropped cache entry; it must show even
	// when progress is quiet.
	Notice func(format string, args ...any)
}

// Fetch runs the source stage for the upstream u pins.
func (f Fetcher) Fetch(ctx context.Context, u recipe.Upstream) (*source.Tree, error) {
	return source.Fetch(ctx, f.request(u))
}

// Checkout fetches the upstream u pins and writes its tree into dst.
func (f Fetcher) Checkout(ctx context.Context, u recipe.Upstream, dst string) error {
	_, err := source.Checkout(ctx, f.request(u), dst)
	return err
}

// CheckoutPin is Checkout for a new pin: a module version whose hash u
// leaves empty gets the hash computed from the fetched tree (a hash u
// gives is checked against it, as every fetch does).
func (f Fetcher) CheckoutPin(ctx context.Context, u recipe.Upstream, dst string) (recipe.Upstream, error) {
	tree, err := source.Checkout(ctx, f.request(u), dst)
	if err != nil {
		return u, err
	}
	if u.Module != "" && u.ModuleVersion != "" && u.ModuleHash == "" {
		if u.ModuleHash, err = tree.ModuleHash(ctx, u.Module, u.ModuleVersion); err != nil {
			return u, err
		}
	}
	return u, nil
}

// ReadFiles fetches the commit u pins (the cache answers a pin fetched
// before) and reads the named files of its tree without a checkout. They
// are the commit's files whatever u's tag names now, so a commit held in
// the cache is read without asking the server where the tag points: a
// rebase's merge bases would otherwise pay a round trip for nothing.
func (f Fetcher) ReadFiles(ctx context.Context, u recipe.Upstream, paths []string) (map[string][]byte, error) {
	if f.Kind != source.Path && source.GitCached(ctx, f.CacheDir, u.Commit) {
		u.Ref = u.Commit
	}
	tree, err := f.Fetch(ctx, u)
	if err != nil {
		return nil, err
	}
	return tree.ReadFiles(ctx, paths)
}

func (f Fetcher) request(u recipe.Upstream) source.Request {
	return source.Request{
		Pin: u, Kind: f.Kind, Upstream: f.Upstream, CacheDir: f.CacheDir, Progress: f.Progress,
		Notice: f.Notice,
	}
}

// Options are an apply's settings.
type Options struct {
	Fetcher
	// Force replaces an out folder holding changes apply did not make,
	// keeping the old tree as a backup.
	Force bool
	// PatchLines prints a progress line per patch.
	PatchLines bool
	// Overlays refresh the generated folders from their source (regen).
	Overlays map[string][]patchset.Overlay
	// CAPI, when set, stages the C API library into the applied tree for
	// a local build (apply --capi).
	CAPI *CAPIOptions
}

// Recipe fetches r's upstream and applies its series into out.
func Recipe(ctx context.Context, r *recipe.Recipe, out string, opt Options) (*patchset.Outcome, error) {
	s, err := patchset.LoadSeries(r)
	if err != nil {
		return nil, err
	}
	return Series(ctx, r, s, out, opt)
}

// Series fetches r's upstream and applies s, r's series as loaded (from
// its files, or regenerated in memory), into out.
func Series(ctx context.Context, r *recipe.Recipe, s *patchset.Series, out string, opt Options) (*patchset.Outcome, error) {
	shown := opt.Progress
	po := patchset.Options{Branch: "epp-build/" + r.Version, Overlays: opt.Overlays, Force: opt.Force, Notice: opt.Notice}
	if opt.PatchLines {
		po.Progress = func(done, total int, p *patchset.Patch) {
			shown.Linef("[%d/%d] %s", done+1, total, textsafe.Escape(p.Name()))
		}
	}
	fetch := func(ctx context.Context) (patchset.Base, error) {
		tree, err := opt.Fetch(ctx, r.Upstream)
		if err != nil {
			return patchset.Base{}, nameRecipe(r, err)
		}
		// Copying a thousand files takes a moment: say so, then say when.
		materialize := func(ctx context.Context, dst string) error {
			task := shown.Start("check out "+gitformat.Short(tree.Commit), 0)
			if err := tree.Materialize(ctx, dst); err != nil {
				task.Abort()
				return err
			}
			task.Done()
			return nil
		}
		return patchset.Base{Upstream: tree.Upstream(), Materialize: materialize}, nil
	}
	return patchset.ApplyTo(ctx, r, s, fetch, out, po)
}

// nameRecipe says which recipe pins a module hash its tree does not have.
func nameRecipe(r *recipe.Recipe, err error) error {
	var mh *source.ModuleHashError
	if errors.As(err, &mh) && mh.Recipe == "" {
		mh.Recipe = r.Version + " (" + filepath.Join(r.Dir, recipe.FileName) + ")"
	}
	return err
}
