package build

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/compile"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/report"
)

// binaryName is the EPP executable's name inside the image.
const binaryName = "epp"

// Run builds, pushes by digest, verifies, smoke-tests and only then tags
// the image, and writes the report. On any failure before the tag step the
// tag is neither created nor moved.
func Run(ctx context.Context, in Input, opt Options) (*report.Report, error) {
	p, err := opt.validate(in)
	if err != nil {
		return nil, err
	}
	capiSrc := in.CAPI
	if capiSrc == nil {
		if opt.CAPISrc == "" {
			return nil, ErrNoCAPI
		}
		var recipeCAPI *recipe.CAPI
		if in.Recipe != nil {
			recipeCAPI = in.Recipe.CAPI
		}
		if capiSrc, err = capi.Local(opt.CAPISrc, recipeCAPI); err != nil {
			return nil, err
		}
	}
	stdout, stderr := writerOr(opt.Stdout), writerOr(opt.Stderr)
	rep := report.New()
	rep.Inputs = report.Inputs{
		Upstream:        redact.URL(in.UpstreamURL),
		UpstreamCommit:  in.UpstreamCommit,
		SourceDateEpoch: in.UpstreamTime.Unix(),
		Patches:         in.Patches,
		Platforms:       p.platforms,
	}
	if in.Recipe != nil {
		rep.Inputs.Version = in.Recipe.Version
	}
	if rep.Inputs.Patches == nil {
		rep.Inputs.Patches = []report.Patch{}
	}
	stage := func(name string, start time.Time) { rep.Time(name, time.Since(start)) }

	// Connect first, to every node at once: an unreachable buildkitd should
	// fail in a second, not after minutes of cargo and go builds.
	t0 := time.Now()
	if err := p.nodes.Connect(ctx, opt.TLS); err != nil {
		return nil, err
	}
	defer p.nodes.Close()
	stage("connect", t0)

	work, err := workDirFor(opt.CacheDir, in.TreeDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(work), 0o755); err != nil {
		return nil, err
	}
	// Two builds of the same tree must not share the work folder at once.
	lock := flock.New(work + ".lock")
	if _, err := lock.TryLockContext(ctx, 200*time.Millisecond); err != nil {
		return nil, fmt.Errorf("lock work folder %s: %w", work, err)
	}
	defer lock.Unlock()

	// C API for every platform.
	t0 = time.Now()
	capiRes, err := capi.Build(ctx, capi.Options{
		SrcDir: capiSrc.Root, CrateDir: capiSrc.CrateDir, Crate: p.crate, Library: p.library,
		Features: opt.CAPIFeatures, Targets: p.targets, CacheDir: opt.CacheDir, Env: opt.Env, Log: stderr,
	})
	if err != nil {
		return nil, fmt.Errorf("C API: %w", err)
	}
	stage("capi", t0)
	rep.Inputs.CAPI = report.CAPI{Source: "local", TreeHash: capiRes.TreeHash, Crate: p.crate, Library: p.library, Generation: p.generation,
		CargoFeatures: opt.CAPIFeatures}
	if capiSrc.Commit != "" {
		rep.Inputs.CAPI.Source, rep.Inputs.CAPI.Commit = "pin", capiSrc.Commit
		if in.Recipe != nil && in.Recipe.CAPI != nil {
			rep.Inputs.CAPI.Repository = redact.URL(in.Recipe.CAPI.Repository)
		}
		for _, a := range capiSrc.Patches {
			rep.Inputs.CAPI.Patches = append(rep.Inputs.CAPI.Patches, report.Patch{Name: a.File, SHA256: a.SHA256})
		}
	} else if commit := gitCommit(ctx, capiSrc.Root); commit != "" {
		rep.Inputs.CAPI.Commit = commit
	}
	tc := capiRes.Toolchain
	rep.Inputs.Toolchains = report.Toolchains{
		Go: runtime.Version(), Rustc: firstLine(tc.RustcVersion), Cargo: tc.CargoVersion, CC: map[string]string{},
		CompileMode: orDefault(opt.Compile, CompileHost), BaseImage: p.baseImage, BuilderImage: opt.BuilderImage,
	}
	for _, t := range p.targets {
		rep.Inputs.Toolchains.CC[t.Platform] = filepath.Base(tc.CC[t.RustTriple]) + " " + tc.CCVersion[t.RustTriple]
	}

	// Build copy of the tree with the libraries staged next to the binding.
	t0 = time.Now()
	src := filepath.Join(work, "src")
	if err := copyTree(in.TreeDir, src); err != nil {
		return nil, fmt.Errorf("copy %s for the build: %w", in.TreeDir, err)
	}
	bindingDir, err := capi.FindBindingDir(src, bindingHeader(p.generation))
	if err != nil {
		return nil, err
	}
	features, err := capi.Stage(capiRes, bindingDir, bindingHeader(p.generation), p.library)
	if err != nil {
		return nil, err
	}
	logFeatures(stderr, features)
	p.tags = capi.Tags(features)
	rep.Inputs.CAPI.Features = p.tags
	stage("stage", t0)

	// Binaries (host mode) and the build context.
	t0 = time.Now()
	contextDir, dockerfile, binSizes, err := prepareContext(ctx, opt, p, work, src, bindingDir, capiRes, tc, stderr)
	if err != nil {
		return nil, err
	}
	stage("compile", t0)

	// One solve for every platform (or one per node, then one index),
	// pushed by digest only.
	t0 = time.Now()
	ro := image.RegistryOptions{Insecure: opt.Insecure, Backoff: opt.retryBackoff}
	buildArgs := map[string]string{"BASE_IMAGE": p.baseImage}
	if opt.BuilderImage != "" {
		buildArgs["BUILDER_IMAGE"] = opt.BuilderImage
	}
	solved, err := solveImage(ctx, p.nodes, image.SolveOptions{
		ContextDir: contextDir, Dockerfile: dockerfile, Platforms: p.platforms, BuildArgs: buildArgs,
		Repository: p.repository, Push: opt.Push, OCITar: opt.OCITar, ImageName: p.tag.String(),
		Insecure: opt.Insecure, SourceDateEpoch: in.UpstreamTime, Progress: opt.Progress, Out: stderr,
		Backoff: opt.retryBackoff, CacheImports: p.cacheImports, CacheExports: p.cacheExports,
		Attestations: p.attest.FrontendAttrs(),
	}, ro)
	if err != nil {
		return nil, fmt.Errorf("image: %w", p.attest.ExplainSolveError(err))
	}
	stage("solve", t0)
	rep.Outputs.IndexDigest = solved.Digest
	rep.Outputs.OCITar = opt.OCITar
	fmt.Fprintf(stdout, "index digest: %s\n", solved.Digest)

	var images []image.PlatformImage
	if opt.Push {
		digestRef := p.repository + "@" + solved.Digest
		t0 = time.Now()
		v, err := image.Verify(ctx, digestRef, p.platforms, ro)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		stage("verify", t0)
		images = v.Images
		for _, img := range images {
			fmt.Fprintf(stdout, "  %s %s (%d bytes)\n", img.Platform, img.Digest, img.Size)
		}
		if err := attestPushed(ctx, p, rep, v, digestRef, ro, stdout); err != nil {
			return nil, err
		}

		t0 = time.Now()
		sm, err := smokeImage(ctx, p.nodes, image.SmokeOptions{
			Ref: digestRef, Images: images, WorkDir: work, Progress: opt.Progress, Out: stderr,
		})
		if err != nil {
			return nil, err
		}
		stage("smoke", t0)
		rep.Outputs.Smoke = &report.Smoke{Ran: sm.Ran, Skipped: sm.Skipped}

		t0 = time.Now()
		if err := image.Tag(ctx, p.tag.String(), digestRef, ro); err != nil {
			return nil, fmt.Errorf("tag: %w", err)
		}
		stage("tag", t0)
		rep.Outputs.Image = p.tag.String()
		fmt.Fprintf(stdout, "tagged %s -> %s\n", p.tag.String(), solved.Digest)
	} else {
		t0 = time.Now()
		v, err := image.VerifyOCITar(opt.OCITar, p.platforms)
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		stage("verify", t0)
		images = v.Images
		for _, img := range images {
			fmt.Fprintf(stdout, "  %s %s (%d bytes)\n", img.Platform, img.Digest, img.Size)
		}
		if err := attestTarball(opt.OCITar, p, stdout, stderr); err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "smoke: skipped (needs a pushed image; pass --push)\n")
	}
	for _, img := range images {
		pi := report.PlatformImage{Platform: img.Platform, Digest: img.Digest, Size: img.Size, BinarySize: binSizes[img.Platform], ArchChecked: img.ArchChecked,
			Node: p.nodes.For(img.Platform).Name()}
		for _, a := range capiRes.Artifacts {
			if a.Target.Platform == img.Platform {
				pi.CAPICacheID, pi.CAPICached = a.Key, a.CacheHit
			}
		}
		rep.Outputs.Images = append(rep.Outputs.Images, pi)
	}
	if opt.Report != "" {
		if err := rep.Write(opt.Report); err != nil {
			return rep, err
		}
		fmt.Fprintf(stdout, "report: %s\n", opt.Report)
	}
	return rep, nil
}

// prepareContext writes the build context for the compile mode and returns
// its folder, the Dockerfile name and (host mode) each binary's size.
func prepareContext(ctx context.Context, opt Options, p *plan, work, src, bindingDir string, res *capi.Result, tc *capi.Toolchain, log io.Writer) (string, string, map[string]int64, error) {
	sizes := map[string]int64{}
	if opt.Compile == CompileContainer {
		// The context is the work folder: src/ plus the Dockerfile.
		_ = os.RemoveAll(filepath.Join(work, "host"))
		df := "Dockerfile.container"
		if err := os.WriteFile(filepath.Join(work, df), []byte(image.ContainerDockerfile(binaryName, p.mainPkg, p.tags...)), 0o644); err != nil {
			return "", "", nil, err
		}
		return work, df, sizes, nil
	}
	hostDir := filepath.Join(work, "host")
	if err := os.RemoveAll(hostDir); err != nil {
		return "", "", nil, err
	}
	var targets []compile.HostTarget
	for _, t := range p.targets {
		targets = append(targets, compile.HostTarget{Platform: t.Platform, GOARCH: t.GOARCH,
			CC: tc.CC[t.RustTriple], LibDir: filepath.Join(bindingDir, "lib", t.GOARCH)})
	}
	bins, err := compile.Host(ctx, compile.HostOptions{ModuleDir: src, Package: p.mainPkg,
		OutDir: filepath.Join(hostDir, "bin"), Binary: binaryName, Targets: targets, Env: opt.Env, Log: log,
		CacheDir: opt.CacheDir, Tags: p.tags})
	if err != nil {
		return "", "", nil, fmt.Errorf("compile: %w", err)
	}
	for _, b := range bins {
		sizes[b.Platform] = b.Size
	}
	if err := os.WriteFile(filepath.Join(hostDir, "Dockerfile"), []byte(image.HostDockerfile(binaryName)), 0o644); err != nil {
		return "", "", nil, err
	}
	return hostDir, "Dockerfile", sizes, nil
}

// logFeatures says which optional C API features the library has, and
// for each one that is off, which functions it lacks.
func logFeatures(w io.Writer, features []capi.Feature) {
	for _, f := range features {
		if f.Enabled {
			fmt.Fprintf(w, "capi: feature %s on (build tag %s)\n", f.Tag, f.Tag)
			continue
		}
		for _, platform := range slices.Sorted(maps.Keys(f.Missing)) {
			fmt.Fprintf(w, "capi: feature %s off: the %s library lacks %s\n", f.Tag, platform, strings.Join(f.Missing[platform], ", "))
		}
	}
}

// gitCommit names the checked-out commit of a local C API checkout, with
// "-dirty" when it has uncommitted changes; "" when it is not a git
// checkout. The tree hash stays the exact identity either way.
func gitCommit(ctx context.Context, dir string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--verify", "HEAD").Output()
	if err != nil {
		return ""
	}
	commit := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain", "--", ".").Output(); err == nil && len(st) > 0 {
		commit += "-dirty"
	}
	return commit
}

func writerOr(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
