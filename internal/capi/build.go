package capi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/gofrs/flock"
	"golang.org/x/sync/errgroup"
)

// Options says which crate to build, for which targets, and where to cache.
type Options struct {
	// SrcDir is the workspace root, where cargo runs (as Dynamo's own build
	// does: cargo build --release -p <crate> from the checkout's root); its
	// tree hash keys the cache.
	SrcDir     string
	CrateDir   string // crate folder relative to SrcDir ("" = SrcDir)
	Crate      string // cargo package, e.g. libdynamo_llm
	Library    string // library name, e.g. dynamo_llm_capi (file lib<Library>.a)
	HeaderName string // optional: which header file is the C API's
	// Features are cargo features of the crate to turn on. The header must
	// then come from the crate's build script (or its include/ folder):
	// cbindgen's command line cannot turn features on.
	Features   []string
	Platforms  []platform.Platform
	CacheDir   string
	Env        []string // process environment for cargo; nil = os.Environ()
	Sequential bool     // build targets one after the other (benchmarks)
	Log        io.Writer
}

// Artifact is one target's built (or cached) library and header.
type Artifact struct {
	Platform platform.Platform
	Library  string // path of lib<Library>.a in the cache
	Header   string // path of the header in the cache
	Key      string
	CacheHit bool
	Duration time.Duration
}

// Result is the outcome for all targets.
type Result struct {
	TreeHash  string
	Toolchain *Toolchain
	Artifacts []Artifact // in Options.Platforms order
}

type meta struct {
	Header string `json:"header"`
}

// cargoFeature is what cargo accepts in --features: a feature, or a
// dependency's feature as crate/feature.
var cargoFeature = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_+.-]*(/[A-Za-z0-9_][A-Za-z0-9_+.-]*)?$`)

// CheckFeatures refuses what cargo would not take as a feature name, so a
// caller can check --capi-features before any fetch or build.
func CheckFeatures(features []string) error {
	for _, f := range features {
		if !cargoFeature.MatchString(f) {
			return fmt.Errorf("C API cargo feature %q: want a feature name (letters, digits, _, -, +, . or crate/feature)", f)
		}
	}
	return nil
}

// Build builds (or takes from the cache) the library for every target,
// concurrently unless opt.Sequential.
func Build(ctx context.Context, opt Options) (*Result, error) {
	if opt.Library == "" || opt.SrcDir == "" || opt.CacheDir == "" || len(opt.Platforms) == 0 {
		return nil, errors.New("capi: SrcDir, Library, CacheDir and Targets are required")
	}
	if err := CheckFeatures(opt.Features); err != nil {
		return nil, err
	}
	environ := opt.Env
	if environ == nil {
		environ = os.Environ()
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	crateDir := filepath.Join(opt.SrcDir, opt.CrateDir)
	for _, dir := range []string{opt.SrcDir, crateDir} {
		if _, err := os.Stat(filepath.Join(dir, "Cargo.toml")); err != nil {
			return nil, fmt.Errorf("C API source %s: no Cargo.toml (want the workspace root and the crate folder %q inside it): %w", dir, opt.CrateDir, err)
		}
	}
	tc, err := FindToolchain(ctx, environ, opt.Platforms)
	if err != nil {
		return nil, err
	}
	tree, err := TreeHash(opt.SrcDir)
	if err != nil {
		return nil, err
	}
	res := &Result{TreeHash: tree, Toolchain: tc, Artifacts: make([]Artifact, len(opt.Platforms))}
	g, gctx := errgroup.WithContext(ctx)
	if opt.Sequential {
		g.SetLimit(1)
	}
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(log, format, args...)
	}
	for i, t := range opt.Platforms {
		g.Go(func() error {
			a, err := buildOne(gctx, env(environ), tc, opt, crateDir, tree, t, logf)
			if err != nil {
				return err
			}
			res.Artifacts[i] = *a
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return res, nil
}

func buildOne(ctx context.Context, e env, tc *Toolchain, opt Options, crateDir, tree string, t platform.Platform, logf func(string, ...any)) (*Artifact, error) {
	start := time.Now()
	key := cacheKey(tree, opt.Crate, opt.Library, opt.Features, t, tc)
	root := filepath.Join(opt.CacheDir, "capi")
	entry := filepath.Join(root, "lib", key)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("C API cache %s: %w", root, err)
	}
	// One builder per key across processes; the second waits and then hits.
	lock := flock.New(filepath.Join(root, key+".lock"))
	if _, err := lock.TryLockContext(ctx, 100*time.Millisecond); err != nil {
		return nil, fmt.Errorf("lock C API cache entry %s: %w", key, err)
	}
	defer lock.Unlock()

	libName := "lib" + opt.Library + ".a"
	if a, ok := readEntry(entry, libName); ok {
		a.Platform, a.Key, a.CacheHit, a.Duration = t, key, true, time.Since(start)
		logf("capi %s: cached (%s)\n", t.String(), key)
		return a, nil
	}
	logf("capi %s: cargo %s\n", t.String(), strings.Join(cargoArgs(opt.Crate, opt.Features, t), " "))
	// A target dir per triple lets both targets build at once (cargo locks
	// its target dir) and keeps incremental state between cache misses. One
	// per feature set too: each keeps its own build-script output, and the
	// header is looked for there.
	targetDir := filepath.Join(root, "target", t.RustTriple+featureSuffix(opt.Features))
	outDirs, err := runCargo(ctx, e, tc, opt.SrcDir, opt.Crate, opt.Features, targetDir, t)
	if err != nil {
		return nil, err
	}
	built := filepath.Join(targetDir, t.RustTriple, "release", libName)
	if _, err := os.Stat(built); err != nil {
		return nil, fmt.Errorf("cargo build for %s succeeded but %s is missing: is the crate's lib name %q and crate-type staticlib?", t.String(), built, opt.Library)
	}
	header, err := findHeader(ctx, e, tc, opt.SrcDir, crateDir, opt.Crate, opt.Features, outDirs, opt.HeaderName, filepath.Join(root, "tmp", key))
	if err != nil {
		return nil, err
	}
	if err := writeEntry(entry, built, libName, header); err != nil {
		return nil, err
	}
	a, ok := readEntry(entry, libName)
	if !ok {
		return nil, fmt.Errorf("C API cache entry %s unreadable after writing", entry)
	}
	a.Platform, a.Key, a.Duration = t, key, time.Since(start)
	logf("capi %s: built in %s\n", t.String(), a.Duration.Round(time.Millisecond))
	return a, nil
}

func readEntry(dir, libName string) (*Artifact, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, false
	}
	var m meta
	if json.Unmarshal(data, &m) != nil || m.Header == "" {
		return nil, false
	}
	a := &Artifact{Library: filepath.Join(dir, libName), Header: filepath.Join(dir, m.Header)}
	for _, p := range []string{a.Library, a.Header} {
		if _, err := os.Stat(p); err != nil {
			return nil, false
		}
	}
	return a, true
}

// writeEntry fills a fresh folder and renames it into place, so a reader
// never sees a half-written entry. meta.json is written last.
func writeEntry(dir, lib, libName, header string) error {
	tmp := dir + ".tmp"
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := filetree.CopyFile(lib, filepath.Join(tmp, libName), 0); err != nil {
		return err
	}
	if err := filetree.CopyFile(header, filepath.Join(tmp, filepath.Base(header)), 0); err != nil {
		return err
	}
	data, _ := json.Marshal(meta{Header: filepath.Base(header)})
	if err := os.WriteFile(filepath.Join(tmp, "meta.json"), data, 0o644); err != nil {
		return err
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("C API cache entry %s: %w", dir, err)
	}
	return nil
}
