package capi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/epp-build/epp-build/internal/redact"

	"github.com/epp-build/epp-build/internal/patchset"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// Checkout is the C API source of a build: the workspace root cargo runs
// in and the crate inside it.
type Checkout struct {
	Root     string // workspace root
	CrateDir string // crate folder relative to Root ("" = Root is the crate)
	Commit   string // the pinned commit; "" for a local source
	// Patches are the C API patches applied to a pinned checkout.
	Patches []patchset.Applied
	cleanup func()
}

// Close removes a fetched checkout; a local one is left alone.
func (c *Checkout) Close() {
	if c.cleanup != nil {
		c.cleanup()
	}
}

// Local takes --capi-src DIR: a checkout of the pinned repository (the
// recipe's crate folder exists inside it: the workspace is built from DIR)
// or the crate itself (such as the test double). Patches are not applied to
// a local source: it is the user's tree.
func Local(dir string, pin *recipe.CAPI) (*Checkout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if pin != nil && pin.Dir != "" {
		if _, err := os.Stat(filepath.Join(abs, filepath.FromSlash(pin.Dir), "Cargo.toml")); err == nil {
			return &Checkout{Root: abs, CrateDir: filepath.FromSlash(pin.Dir)}, nil
		}
	}
	if _, err := os.Stat(filepath.Join(abs, "Cargo.toml")); err != nil {
		want := "a crate folder"
		if pin != nil && pin.Dir != "" {
			want = fmt.Sprintf("a checkout of %s (with %s/Cargo.toml) or a crate folder", redact.URL(pin.Repository), pin.Dir)
		}
		return nil, fmt.Errorf("--capi-src %s: no Cargo.toml; want %s", dir, want)
	}
	return &Checkout{Root: abs}, nil
}

// PinUnreachableError is a C API pin that could not be fetched. Its message
// says what a build needs instead.
type PinUnreachableError struct {
	Pin *recipe.CAPI
	Err error
}

func (e *PinUnreachableError) Error() string {
	p := *e.Pin
	p.Repository = redact.URL(p.Repository)
	return fmt.Sprintf("C API pin unreachable: cannot fetch %s at %s (commit %s): %v\n"+
		"Building the C API without --capi-src needs:\n"+
		"  - that repository and commit (git over the network, or a mirror through the source options);\n"+
		"  - crates.io (or a registry mirror or vendored sources in .cargo/config.toml) for the crates the "+
		"workspace depends on: cargo builds %s from the workspace root with -p %s;\n"+
		"  - cbindgen, when the crate's build script does not write the header.\n"+
		"Or pass --capi-src DIR: a checkout of %s at %s (the crate is %s inside it), "+
		"or a crate folder that provides the same C API (for tests, testdata/capi-double).",
		p.Repository, p.Ref, p.Commit, e.Err, p.Crate, p.Crate, p.Repository, p.Commit, p.Dir)
}

func (e *PinUnreachableError) Unwrap() error { return e.Err }

// FetchPin fetches the recipe's C API pin (verified, cached), makes it a
// work tree in a temporary folder and applies the recipe's C API patch
// series with the same strict engine as the upstream series, one commit per
// patch. Close the Checkout when done.
func FetchPin(ctx context.Context, pin *recipe.CAPI, cacheDir string, notice func(string, ...any)) (*Checkout, error) {
	patches, err := loadPatches(pin)
	if err != nil {
		return nil, err
	}
	tree, err := source.Fetch(ctx, source.Request{
		Pin:  recipe.Upstream{Repository: pin.Repository, Ref: pin.Ref, Commit: pin.Commit},
		Kind: source.Git, CacheDir: cacheDir, Notice: notice,
	})
	if err != nil {
		return nil, &PinUnreachableError{Pin: pin, Err: err}
	}
	tmp, err := os.MkdirTemp("", "epp-build-capi-")
	if err != nil {
		return nil, err
	}
	c := &Checkout{Root: filepath.Join(tmp, "src"), CrateDir: filepath.FromSlash(pin.Dir), Commit: pin.Commit,
		cleanup: func() { os.RemoveAll(tmp) }}
	if err := tree.Materialize(ctx, c.Root); err != nil {
		c.Close()
		return nil, err
	}
	if patches.Len() > 0 {
		res, err := patchset.ApplyToRepo(ctx, c.Root, patches, patchset.Options{})
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("C API patches on %s@%s: %w", redact.URL(pin.Repository), pin.Ref, err)
		}
		c.Patches = res.Patches
	}
	return c, nil
}

func loadPatches(pin *recipe.CAPI) (*patchset.Series, error) {
	var out []*patchset.Patch
	for i, path := range pin.PatchPaths {
		ps, err := patchset.ParseFile(path, pin.Patches[i])
		if err != nil {
			return nil, fmt.Errorf("C API patch: %w", err)
		}
		out = append(out, ps...)
	}
	s, err := patchset.NewSeries(out)
	if err != nil {
		return nil, fmt.Errorf("C API patches: %w", err)
	}
	return s, nil
}
