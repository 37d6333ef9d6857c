package pipeline

import (
	"context"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/nodes"
	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/source"
)

// Request is one release: the recipe and how to apply it; the build
// command's Resolved options say how to build, attest and report.
type Request struct {
	Recipe *recipe.Recipe
	// TreeDir keeps the applied tree, reused by the next build of the same
	// version; "" = the cache folder + /trees/VERSION.
	TreeDir string
	// Apply fetches and applies the recipe; its cache folder and notices
	// serve the C API pin's fetch too.
	Apply apply.Options
}

// Release is the one owner of the build pipeline, run in one direction:
// apply -> the C API pin (or Options.CAPISrc) -> compile -> image ->
// attest -> report. Anything external the build needs that is missing
// (Preflight) fails before anything is fetched.
func Release(ctx context.Context, b *Resolved, req Request) (*report.Report, error) {
	p, err := b.forVersion(req.Recipe)
	if err != nil {
		return nil, err
	}
	return b.release(ctx, p, req, nil)
}

// release builds one version with its plan p. shared is the node plan
// ReleaseAll connected for every version, after preflighting them all;
// nil means this build preflights and connects on its own.
func (b *Resolved) release(ctx context.Context, p *plan, req Request, shared *nodes.Plan) (*report.Report, error) {
	r := req.Recipe
	if shared == nil {
		if err := b.preflight(ctx, p, req); err != nil {
			return nil, err
		}
	}
	tree := req.TreeDir
	if tree == "" {
		root, err := cacheRoot(req.Apply.CacheDir)
		if err != nil {
			return nil, err
		}
		tree = filepath.Join(root, "trees", r.Version)
	}
	res, err := apply.Recipe(ctx, r, tree, req.Apply)
	if err != nil {
		return nil, err
	}
	in := inputFrom(r, res)
	if b.opt.CAPISrc == "" && r.CAPI != nil {
		if in.CAPI, err = capi.FetchPin(ctx, r.CAPI, req.Apply.CacheDir, req.Apply.Notice); err != nil {
			return nil, err
		}
		defer in.CAPI.Close()
	}
	cacheDir := b.opt.CacheDir
	if cacheDir == "" {
		if cacheDir, err = cacheRoot(req.Apply.CacheDir); err != nil {
			return nil, err
		}
	}
	return b.run(ctx, p, in, shared, cacheDir)
}

// inputFrom is what the apply stage hands the build.
func inputFrom(r *recipe.Recipe, res *patchset.Outcome) Input {
	rec := res.Record
	in := Input{Recipe: r, TreeDir: res.Dir, Upstream: rec.Upstream}
	for _, a := range rec.Patches {
		in.Patches = append(in.Patches, PatchDigest{Name: a.File, SHA256: a.SHA256})
	}
	return in
}

// cacheRoot is the --cache-dir folder, else the user cache folder's.
func cacheRoot(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	return source.CacheDir()
}
