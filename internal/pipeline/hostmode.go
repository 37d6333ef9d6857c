package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/compile"
	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
)

// buildOnHost builds the C API with cargo and the EPP with cgo on this
// machine for every platform, then assembles the images in one solve.
func buildOnHost(ctx context.Context, m modeInput) (*built, error) {
	opt, p := m.opt, m.p
	t0 := time.Now()
	capiRes, err := capi.Build(ctx, capi.Options{
		SrcDir: m.capiSrc.Root, CrateDir: m.capiSrc.CrateDir, Crate: p.crate, Library: p.library,
		Features: opt.CAPIFeatures, Platforms: opt.Platforms, CacheDir: opt.CacheDir, Env: opt.Env, Log: m.log,
	})
	if err != nil {
		return nil, fmt.Errorf("C API: %w", err)
	}
	m.stage("capi", t0)
	m.rep.Inputs.CAPI = capiReport(ctx, m, capiRes.TreeHash)
	tc := capiRes.Toolchain
	m.rep.Inputs.Toolchains = report.Toolchains{
		Go: hostGoVersion(p), Rustc: firstLine(tc.RustcVersion), Cargo: tc.CargoVersion, CC: map[string]string{},
		CompileMode: CompileHost, BaseImage: p.baseImage,
	}
	for _, t := range opt.Platforms {
		m.rep.Inputs.Toolchains.CC[t.String()] = filepath.Base(tc.CC[t.RustTriple]) + " " + tc.CCVersion[t.RustTriple]
	}

	// Build copy of the tree with the libraries staged next to the binding.
	t0 = time.Now()
	src := filepath.Join(m.work, "src")
	if err := filetree.Copy(m.in.TreeDir, src, ".git"); err != nil {
		return nil, fmt.Errorf("copy %s for the build: %w", m.in.TreeDir, err)
	}
	bindingDir, err := capi.FindBindingDir(src, bindingHeader(p.generation))
	if err != nil {
		return nil, err
	}
	features, err := capi.Stage(capiRes, bindingDir, bindingHeader(p.generation), p.library)
	if err != nil {
		return nil, err
	}
	logFeatures(m.log, features)
	p.tags = capi.Tags(features)
	m.rep.Inputs.CAPI.Features = p.tags
	m.rep.Inputs.CAPI.Variants = capi.Variants(features)
	m.stage("stage", t0)

	// Binaries and the build context.
	t0 = time.Now()
	contextDir, binSizes, binPaths, err := hostContext(ctx, opt, p, m.work, src, bindingDir, tc, m.log)
	if err != nil {
		return nil, err
	}
	if err := writeCAPISPDX(contextDir, m.rep.Inputs); err != nil {
		return nil, err
	}
	m.stage("compile", t0)
	if m.gate != nil {
		if err := m.gate(ctx, scanTargets(binPaths)); err != nil {
			return nil, err
		}
	}

	t0 = time.Now()
	so := solveOptions(m)
	so.ContextDir, so.Dockerfile = contextDir, "Dockerfile"
	solved, err := solveImage(ctx, p.nodes, so, m.ro)
	if err != nil {
		return nil, fmt.Errorf("image: %w", p.attest.ExplainSolveError(err))
	}
	m.stage("solve", t0)
	b := &built{digest: solved.Digest, binSizes: binSizes, capi: map[string]capi.Artifact{}}
	for _, a := range capiRes.Artifacts {
		b.capi[a.Platform.String()] = a
	}
	return b, nil
}

// hostContext compiles the EPP for every platform here and writes the
// context that assembles the images; it returns the context folder and
// each binary's size and path.
func hostContext(ctx context.Context, opt Options, p *plan, work, src, bindingDir string, tc *capi.Toolchain, log io.Writer) (string, map[string]int64, map[string]string, error) {
	sizes, paths := map[string]int64{}, map[string]string{}
	hostDir := filepath.Join(work, "host")
	if err := os.RemoveAll(hostDir); err != nil {
		return "", nil, nil, err
	}
	var targets []compile.HostTarget
	for _, t := range opt.Platforms {
		targets = append(targets, compile.HostTarget{Platform: t,
			CC: tc.CC[t.RustTriple], LibDir: filepath.Join(bindingDir, "lib", t.GOARCH)})
	}
	bins, err := compile.Host(ctx, compile.HostOptions{ModuleDir: src, Package: p.mainPkg,
		OutDir: filepath.Join(hostDir, "bin"), Binary: binaryName, Targets: targets, Env: opt.Env, Log: log,
		CacheDir: opt.CacheDir, Tags: p.tags, Toolchain: p.toolchain})
	if err != nil {
		return "", nil, nil, fmt.Errorf("compile: %w", err)
	}
	for _, b := range bins {
		sizes[b.Platform.String()], paths[b.Platform.String()] = b.Size, b.Path
	}
	if err := os.WriteFile(filepath.Join(hostDir, "Dockerfile"), []byte(image.HostDockerfile(binaryName)), 0o644); err != nil {
		return "", nil, nil, err
	}
	return hostDir, sizes, paths, nil
}
