package apply

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/compile"
	"github.com/epp-build/epp-build/internal/inputfile"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/source"
)

// C API defaults for a recipe without a capi section: Dynamo's crate and
// library, and the generation the v0.x line speaks (as the build takes).
const (
	defaultCrate      = "libdynamo_llm"
	defaultLibrary    = "dynamo_llm_capi"
	defaultGeneration = "pipeline"
)

// CAPIOptions say where the C API library staged for a local build comes
// from.
type CAPIOptions struct {
	// Src is --capi-src: a local checkout or crate; "" builds the recipe's
	// pin.
	Src      string
	CacheDir string   // "" = the user cache folder
	Features []string // cargo features of the crate
	Env      []string // cargo's environment; nil = this process's
	Log      io.Writer
	Notice   func(format string, args ...any)
}

// StagedCAPI is the C API library put where the tree's cgo binding links
// it.
type StagedCAPI struct {
	// Source is the pin (repository@commit) or the --capi-src folder.
	Source string
	// BindingDir is the binding's folder, relative to the tree.
	BindingDir string
	// Files are what was staged, relative to the tree: never part of the
	// series (they are listed in .git/info/exclude).
	Files []string
	// Tags are the Go build tags of the library's variants and features.
	Tags     []string
	CacheHit bool
}

// StageCAPI builds (or takes from the cache) the C API library of r for
// this machine and stages it, with its header, into the cgo binding of
// the tree, so `go build ./cmd/epp` links there. The staged files are
// added to the tree's .git/info/exclude: `git add -A` and export leave
// them out, and a re-apply keeps them as the user's own files.
func StageCAPI(ctx context.Context, r *recipe.Recipe, tree string, opt CAPIOptions) (*StagedCAPI, error) {
	// The library is linked for this machine's linux arch; elsewhere the
	// platform lookup below would blame a --platform no one passed.
	if err := compile.CheckSystem("--capi", "build the image with `epp-build build --compile container`"); err != nil {
		return nil, err
	}
	crate, library, generation := defaultCrate, defaultLibrary, defaultGeneration
	if r.CAPI != nil {
		crate, library, generation = r.CAPI.Crate, r.CAPI.Library, r.CAPI.Generation
	}
	header := "dynamo_llm_" + generation + ".h"
	bindingDir, err := capi.FindBindingDir(tree, header)
	if err != nil {
		return nil, err
	}
	host, err := platform.Lookup(runtime.GOOS + "/" + runtime.GOARCH)
	if err != nil {
		return nil, fmt.Errorf("stage the C API: %w", err)
	}
	if opt.CacheDir == "" {
		if opt.CacheDir, err = source.CacheDir(); err != nil {
			return nil, err
		}
	}
	src, err := capiSource(ctx, r, opt)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	res, err := capi.Build(ctx, capi.Options{
		SrcDir: src.Root, CrateDir: src.CrateDir, Crate: crate, Library: library,
		Features: opt.Features, Platforms: []platform.Platform{host}, CacheDir: opt.CacheDir, Env: opt.Env, Log: log,
	})
	if err != nil {
		return nil, fmt.Errorf("C API: %w", err)
	}
	features, err := capi.Stage(res, bindingDir, header, library)
	if err != nil {
		return nil, err
	}
	relBinding, err := filepath.Rel(tree, bindingDir)
	if err != nil {
		return nil, err
	}
	a := res.Artifacts[0]
	staged := &StagedCAPI{
		Source:     opt.Src,
		BindingDir: filepath.ToSlash(relBinding),
		Files: []string{
			filepath.ToSlash(filepath.Join(relBinding, "lib", host.GOARCH, "lib"+library+".a")),
			filepath.ToSlash(filepath.Join(relBinding, "include", filepath.Base(a.Header))),
		},
		Tags:     capi.Tags(features),
		CacheHit: a.CacheHit,
	}
	if opt.Src == "" {
		staged.Source = r.CAPI.Repository + "@" + r.CAPI.Commit
	}
	if err := ExcludeFromGit(tree, staged.Files); err != nil {
		return nil, err
	}
	return staged, nil
}

func capiSource(ctx context.Context, r *recipe.Recipe, opt CAPIOptions) (*capi.Checkout, error) {
	if opt.Src != "" {
		return capi.Local(opt.Src, r.CAPI)
	}
	if r.CAPI == nil {
		return nil, fmt.Errorf("recipe %s has no capi pin: pass --capi-src DIR (a checkout of the C API's workspace, or the crate)", r.Version)
	}
	return capi.FetchPin(ctx, r.CAPI, opt.CacheDir, opt.Notice)
}

// excludeHeader opens the block of .git/info/exclude that epp-build keeps.
const excludeHeader = "# staged by epp-build apply --capi: the C API library is not part of the series"

// ExcludeFromGit lists paths (relative to tree, slash-separated) in the
// tree's .git/info/exclude, once each, anchored.
func ExcludeFromGit(tree string, paths []string) error {
	return excludeUnder(tree, excludeHeader, paths)
}

// excludeUnder lists paths in the tree's .git/info/exclude under header,
// adding only those not there yet.
func excludeUnder(tree, header string, paths []string) error {
	name := filepath.Join(tree, ".git", "info", "exclude")
	data, err := inputfile.ReadFile(name, "", inputfile.StateLimit(".git/info/exclude"))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(line)] = true
	}
	var add []string
	for _, p := range paths {
		if line := "/" + p; !have[line] {
			add = append(add, line)
		}
	}
	if len(add) == 0 {
		return nil
	}
	sort.Strings(add)
	text := string(data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if !have[header] {
		text += header + "\n"
	}
	text += strings.Join(add, "\n") + "\n"
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, []byte(text), 0o644)
}
