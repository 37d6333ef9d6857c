package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/filetree"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/report"
)

// containerDockerfile is the container mode's Dockerfile in the context.
const containerDockerfile = "Dockerfile.container"

// buildInSolve builds everything inside one BuildKit solve, in the builder
// image on the build platform: the C API with cargo per target platform,
// then the EPP with cgo, then the images. This machine needs no cargo, Go
// or C compiler: between the two, the solve's C API output is read back
// here, the binding's prototypes are checked against the library's header
// (a mismatch fails the build before the EPP is compiled) and the optional
// features decided, as in host mode.
func buildInSolve(ctx context.Context, m modeInput) (*built, error) {
	opt, p := m.opt, m.p
	t0 := time.Now()
	tree, err := capi.TreeHash(m.capiSrc.Root)
	if err != nil {
		return nil, err
	}
	m.rep.Inputs.CAPI = capiReport(ctx, m, tree)

	// The context: the tree's copy in src/, the Dockerfile and the C API
	// build script; the C API workspace is a second, named context.
	src := filepath.Join(m.work, "src")
	if err := filetree.Copy(m.in.TreeDir, src, ".git"); err != nil {
		return nil, fmt.Errorf("copy %s for the build: %w", m.in.TreeDir, err)
	}
	_ = os.RemoveAll(filepath.Join(m.work, "host"))
	bindingDir, err := capi.FindBindingDir(src, bindingHeader(p.generation))
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(src, bindingDir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		containerDockerfile: []byte(image.ContainerDockerfileGo(binaryName, p.mainPkg, filepath.ToSlash(rel), p.fetch.secretIDs(), p.toolchain)),
		image.CAPIScript:    capi.InSolveScript(),
	}
	if files[image.CAPISPDXFile], err = attest.CAPISPDX(m.rep.Inputs); err != nil {
		return nil, err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(m.work, name), data, 0o644); err != nil {
			return nil, err
		}
	}
	m.stage("stage", t0)

	spec := capi.SolveSpec{Crate: p.crate, Library: p.library, CrateDir: m.capiSrc.CrateDir, Features: opt.CAPIFeatures}
	check := capi.SolvedCheck{Spec: spec, CrateDir: filepath.Join(m.capiSrc.Root, m.capiSrc.CrateDir),
		BindingDir: bindingDir, BindingHeader: bindingHeader(p.generation)}
	// With a node per platform, each node's solve runs its own check for
	// its own platforms, at the same time; the results are merged.
	var (
		mu       sync.Mutex
		checked  *capi.SolvedResult
		checkErr error
		gateErr  error
	)
	t0 = time.Now()
	so := solveOptions(m)
	so.ContextDir, so.Dockerfile = m.work, containerDockerfile
	so.Secrets = p.fetch.solveSecrets()
	maps.Copy(so.BuildArgs, spec.BuildArgs())
	so.Contexts = map[string]image.NamedContext{image.CAPIContext: {Dir: m.capiSrc.Root, Exclude: []string{"**/target", "**/.git"}}}
	if p.toolchain != "" {
		if so.Contexts[image.GoToolchainContext], err = image.GoToolchainNamedContext(ctx, p.toolchain, buildArches(opt.Platforms), m.log); err != nil {
			return nil, err
		}
	}
	so.Prepare = func(ctx context.Context, s image.StageSolver) (map[string]string, error) {
		platforms := s.Platforms()
		res, err := checkInSolve(ctx, s, platforms, check)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			checkErr = err
			return nil, err
		}
		checked = mergeSolved(checked, res)
		m.stage("capi", t0)
		for _, platform := range platforms {
			fmt.Fprintf(m.log, "capi %s: built in the solve; binding checked against %s\n", platform, res.Headers[platform])
		}
		logFeatures(m.log, res.Features)
		args := map[string]string{image.TagsArg: strings.Join(capi.Tags(res.Features), ",")}
		if m.gate != nil {
			if gateErr = gateInSolve(ctx, s, platforms, args, m); gateErr != nil {
				return nil, gateErr
			}
		}
		return args, nil
	}
	solved, err := solveImage(ctx, p.nodes, so, m.ro)
	if fe := (*image.FetchError)(nil); errors.As(err, &fe) {
		fe.Settings = p.fetch.describe(fe.What)
		return nil, fmt.Errorf("image: %w", err) // the C API's crates or the EPP's modules: not the check's fault
	}
	if gateErr != nil && ctx.Err() == nil {
		return nil, gateErr // refused before the final solve: nothing was exported
	}
	if checkErr != nil && ctx.Err() == nil {
		// As host mode reports it: exit 5 for a prototype mismatch. The
		// C API stages run with the solve's attestations, so the SBOM
		// generator can fail here first; it gets host mode's hint.
		return nil, p.attest.ExplainSolveError(checkErr)
	}
	if err != nil {
		return nil, fmt.Errorf("image: %w", p.attest.ExplainSolveError(err))
	}
	m.stage("solve", t0)

	p.tags = capi.Tags(checked.Features)
	m.rep.Inputs.CAPI.Features = p.tags
	m.rep.Inputs.CAPI.Variants = capi.Variants(checked.Features)
	goVersion := checked.Go
	if p.toolchain != "" {
		goVersion = p.toolchain // the compile step checked its go says so
	} else if goVersion == "" {
		goVersion = "unknown (the builder image has no go on PATH for the C API stage)"
	}
	m.rep.Inputs.Toolchains = report.Toolchains{
		Go: goVersion, Rustc: firstLine(checked.Rustc), Cargo: checked.Cargo, CC: checked.CC,
		CompileMode: CompileContainer, BaseImage: p.baseImage, BuilderImage: opt.BuilderImage,
	}
	return &built{digest: solved.Digest, binSizes: map[string]int64{}}, nil
}

// mergeSolved joins the checks of per-node solves: a feature is on only
// where every node found it, as one solve over all platforms decides.
func mergeSolved(into, res *capi.SolvedResult) *capi.SolvedResult {
	if into == nil {
		return res
	}
	maps.Copy(into.Headers, res.Headers)
	maps.Copy(into.CC, res.CC)
	for i := range into.Features {
		for _, f := range res.Features {
			if f.Tag != into.Features[i].Tag {
				continue
			}
			into.Features[i].Enabled = into.Features[i].Enabled && f.Enabled
			if len(f.Missing) > 0 && into.Features[i].Missing == nil {
				into.Features[i].Missing = map[string][]string{}
			}
			maps.Copy(into.Features[i].Missing, f.Missing)
		}
	}
	return into
}

// checkInSolve solves the C API stage for every platform and checks what
// it built (capi.CheckSolved); the cbindgen stage is solved only when the
// crate's build wrote no header.
func checkInSolve(ctx context.Context, s image.StageSolver, platforms []string, check capi.SolvedCheck) (*capi.SolvedResult, error) {
	out, err := s.SolveStage(ctx, image.CAPIOutStage, platforms)
	if err != nil {
		return nil, fmt.Errorf("C API: %w", err)
	}
	fsys := map[string]capi.SolvedFS{}
	for platform, f := range out {
		fsys[platform] = f
	}
	check.Cbindgen = func(ctx context.Context) (capi.SolvedFS, error) {
		out, err := s.SolveStage(ctx, image.CAPICbindgenStage, platforms[:1])
		if err != nil {
			return nil, err
		}
		return out[platforms[0]], nil
	}
	return capi.CheckSolved(ctx, fsys, platforms, check)
}

// gateInSolve solves the EPP's stage with the final solve's build args
// (so the final solve builds it once, not again), copies each platform's
// binary here and runs the gate on them, before anything is exported.
func gateInSolve(ctx context.Context, s image.StageSolver, platforms []string, args map[string]string, m modeInput) error {
	out, err := s.SolveStageWith(ctx, image.EPPStage, platforms, args)
	if err != nil {
		return fmt.Errorf("EPP: %w", err)
	}
	inStage := strings.TrimPrefix(path.Join(image.EPPOutDir, binaryName), "/")
	paths := map[string]string{}
	for platform, fs := range out {
		dst := filepath.Join(m.work, "gate", strings.ReplaceAll(platform, "/", "-"), binaryName)
		if err := copyStageFile(ctx, fs, inStage, dst); err != nil {
			return fmt.Errorf("read the %s EPP back from the solve: %w", platform, err)
		}
		paths[platform] = dst
	}
	return m.gate(ctx, scanTargets(paths))
}

func copyStageFile(ctx context.Context, fs *image.StageFS, name, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	err = fs.CopyFile(ctx, name, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
