package pipeline

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/nodes"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/vulns"
)

// binaryName is the EPP executable's name inside the image.
const binaryName = "epp"

// Run builds, pushes by digest, verifies, attests, smoke-tests and only
// then tags the image, and writes the report. On any failure before the
// tag step the tag is neither created nor moved.
func Run(ctx context.Context, b *Resolved, in Input) (*report.Report, error) {
	p, err := b.forVersion(in.Recipe)
	if err != nil {
		return nil, err
	}
	return b.run(ctx, p, in, nil, b.opt.CacheDir)
}

// run is Run of one version's plan p, on the nodes ReleaseAll connected
// (shared) or, when nil, on its own connections; cacheDir holds the C
// API cache and the work folders.
func (b *Resolved) run(ctx context.Context, p *plan, in Input, shared *nodes.Plan, cacheDir string) (*report.Report, error) {
	opt := b.opt
	opt.CacheDir = cacheDir
	if err := opt.complete(p, in); err != nil {
		return nil, err
	}
	var err error
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
		Upstream:        in.Repository, // redacted by the source stage
		UpstreamCommit:  in.UpstreamCommit,
		SourceDateEpoch: in.UpstreamTime.Unix(),
		Patches:         in.Patches,
		Platforms:       p.platforms,
	}
	if in.Recipe != nil {
		rep.Inputs.Version = in.Recipe.Version
	}
	rep.Inputs.Recipes = opt.Recipes
	rep.Inputs.Fetch = p.fetch.report()
	if opt.Compile != CompileContainer {
		opt.Env = p.fetch.hostEnv(opt.Env)
	}
	rep.Inputs.Module, rep.Inputs.GoModules = goModules(in)
	if rep.Inputs.Patches == nil {
		rep.Inputs.Patches = []report.Patch{}
	}
	stage := func(name string, start time.Time) { rep.Time(name, time.Since(start)) }

	// Connect first, to every node at once: an unreachable buildkitd should
	// fail in a second, not after minutes of cargo and go builds.
	t0 := time.Now()
	if shared != nil {
		p.nodes = shared
	} else {
		if err := p.nodes.Connect(ctx, opt.TLS); err != nil {
			return nil, err
		}
		defer p.nodes.Close()
	}
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

	// C API, EPP binaries and one solve for every platform, pushed by
	// digest only: compiled here (host) or all inside the solve (container).
	build := buildOnHost
	if opt.Compile == CompileContainer {
		build = buildInSolve
	}
	ro := image.RegistryOptions{Insecure: opt.Insecure, Backoff: opt.retryBackoff}
	mi := modeInput{in: in, opt: opt, p: p, capiSrc: capiSrc, work: work, rep: rep, log: stderr, ro: ro}
	if opt.Vulns.enabled() {
		shown := progress.New(stderr, opt.Progress)
		mi.gate = func(ctx context.Context, bins []vulns.Binary) error { return b.gate(ctx, rep, bins, shown, stdout) }
	}
	built, err := build(ctx, mi)
	if err != nil {
		return nil, err
	}
	rep.Outputs.IndexDigest = built.digest
	rep.Outputs.OCITar = opt.OCITar
	fmt.Fprintf(stdout, "index digest: %s\n", built.digest)

	var images []image.PlatformImage
	if opt.Push {
		digestRef := p.repository + "@" + built.digest
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
		if err := attachScan(ctx, p, rep, v, ro, stdout); err != nil {
			return nil, err
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
		fmt.Fprintf(stdout, "tagged %s -> %s\n", p.tag.String(), built.digest)
		if err := tagMore(ctx, p, digestRef, ro, stdout); err != nil {
			return nil, err
		}
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
		pi := report.PlatformImage{Platform: img.Platform, Digest: img.Digest, Size: img.Size, BinarySize: built.binSizes[img.Platform], ArchChecked: img.ArchChecked,
			Node: p.nodes.For(img.Platform).Name()}
		if a, ok := built.capi[img.Platform]; ok {
			pi.CAPICacheID, pi.CAPICached = a.Key, a.CacheHit
		}
		rep.Outputs.Images = append(rep.Outputs.Images, pi)
	}
	if p.report != "" {
		if err := rep.Write(p.report); err != nil {
			return rep, err
		}
		fmt.Fprintf(stdout, "report: %s\n", p.report)
	}
	return rep, nil
}

// logFeatures says which optional C API features the library has, and
// for each one that is off, which functions it lacks; and which variant of
// each axis its header declares.
func logFeatures(w io.Writer, features []capi.Feature) {
	for _, f := range features {
		if f.Axis != "" {
			if f.Enabled {
				fmt.Fprintf(w, "capi: variant %s %s (build tag %s; the library header matches %s)\n", f.Axis, f.Variant, f.Tag, f.Header)
			}
			continue
		}
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
