// Package build owns the release pipeline: Release applies a recipe and
// fetches its C API pin, then Run turns the patched tree into a verified
// multi-arch EPP image: C API per arch -> EPP binaries -> one BuildKit solve
// -> push by digest -> verify -> smoke -> tag -> report. In the container
// compile mode the C API and the EPP are built inside that one solve.
package pipeline

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/moby/buildkit/client"

	"github.com/epp-build/epp-build/internal/attest"
	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/compile"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/nodes"
	"github.com/epp-build/epp-build/internal/platform"
	"github.com/epp-build/epp-build/internal/progress"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/report"
	"github.com/epp-build/epp-build/internal/source"
)

// PatchDigest names an applied patch and the SHA-256 of its file.
type PatchDigest = report.Patch

// TLSOptions are the client TLS files for a tcp:// buildkitd.
type TLSOptions = image.TLSOptions

// Input is the patched tree the apply stage produced.
type Input struct {
	Recipe  *recipe.Recipe // CAPI pin in Recipe.CAPI (may be nil with --capi-src)
	TreeDir string         // patched upstream work tree (read-only here)
	// Upstream is the tree's provenance as the apply record holds it; its
	// commit time is SOURCE_DATE_EPOCH.
	source.Upstream
	Patches []PatchDigest
	// CAPI is the fetched (and patched) C API pin; nil means Options.CAPISrc.
	CAPI *capi.Checkout
}

// Compile modes.
const (
	CompileHost      = "host"
	CompileContainer = "container"
)

// Options are the build command's settings.
type Options struct {
	Image     string              // registry ref with tag, e.g. 127.0.0.1:5000/dynamo/epp:v0.7.0
	Platforms []platform.Platform // parsed once, by platform.Parse
	Push      bool
	OCITar    string
	// BuildKit is the daemon: one address for every platform, or
	// PLATFORM=ADDR pairs (each value may be a comma list) to build each
	// platform on its own node; none -> $BUILDKIT_HOST.
	BuildKit []string
	TLS      TLSOptions
	Insecure bool // plain-HTTP / untrusted registry
	// CacheFrom and CacheTo are --cache-from / --cache-to values in buildx's
	// syntax (see image.ParseCache).
	CacheFrom, CacheTo []string
	CAPISrc            string // local workspace checkout or crate instead of the recipe's pin
	// CAPIFeatures are cargo features of the C API crate to build with
	// (for a --capi-src crate that needs them, such as the test double's
	// pipeline08); the crate's build script must write the matching header.
	CAPIFeatures []string
	Compile      string // host|container
	Progress     progress.Mode
	Report       string // JSON report path
	// Recipes is the recipe set the recipe came from, for the report.
	Recipes *report.Recipes
	// BuilderImage is the container-mode builder: Go, rustc and cargo with
	// the std of both targets, cbindgen and the C compilers for both arches.
	BuilderImage string
	// Provenance and SBOM are the --provenance (true|false|mode=min|max)
	// and --sbom (true|false|generator=IMAGE) values; "" is the default:
	// provenance mode=max and an SBOM from BuildKit's default generator.
	Provenance, SBOM string
	// SignKey signs the report attestation (cosign's key format or a PEM
	// private key; the password in $COSIGN_PASSWORD); "" leaves it unsigned.
	SignKey string
	// BaseImage is the runtime base ("" = ubuntu:24.04).
	BaseImage string
	// CacheDir holds the C API cache and build work folders.
	CacheDir       string
	Stdout, Stderr io.Writer

	// MainPackage is the EPP's main package in the tree ("" = ./cmd/epp).
	MainPackage string
	// Env is the environment for cargo and go ("" = this process's).
	Env []string
	// Fetch are the settings for what the build fetches, and the --secret
	// and --build-arg values (fetch.go).
	Fetch FetchOptions

	// Tags are more tags for the image, in its repository, set with
	// Image's after every check (--tag). Image, Tags and Report are
	// templates of the version (see TagData); with no Image the first tag
	// is the image.
	Tags []string
	// Labels (KEY=VALUE) and Annotations (buildx's [TYPE,...:]KEY=VALUE)
	// go over the OCI defaults (see imageMetadata).
	Labels, Annotations []string

	// Vulns is --vulns: the scan of the compiled binaries that stops the
	// build before anything is pushed.
	Vulns VulnsGate

	// retryBackoff overrides the first registry retry delay (tests).
	retryBackoff time.Duration
}

// C API defaults: Dynamo's crate and library names, and the generation the
// v0.x line speaks.
const (
	defaultCrate      = "libdynamo_llm"
	defaultLibrary    = "dynamo_llm_capi"
	defaultGeneration = "pipeline"
)

// ErrNoCAPI means there is no C API source: no --capi-src and no pin.
var ErrNoCAPI = errors.New("no C API source: the recipe has no capi pin; pass --capi-src DIR (a checkout of the C API's workspace, or the crate)")

type plan struct {
	// platforms are the OCI names of Options.Platforms, as BuildKit, the
	// registry and the report take them.
	platforms  []string
	tag        name.Tag
	repository string
	crate      string
	library    string
	generation string
	mainPkg    string
	baseImage  string
	tags       []string // Go build tags of the C API's optional features
	attest     attest.Request
	signer     *attest.Signer
	nodes      *nodes.Plan
	// cacheImports and cacheExports are CacheFrom and CacheTo parsed.
	cacheImports, cacheExports []client.CacheOptionsEntry
	fetch                      *fetchPlan
	ci                         ciSettings
	// report is where this version's report goes (--report expanded).
	report string
	// toolchain is the recipe's Go release (goX.Y.Z); "" builds with the
	// Go at hand (host) or the builder's (container).
	toolchain string
}

// OptionsError lists every option that cannot work, found before any
// work starts.
type OptionsError struct{ Problems []string }

// Error passes the problems through the one redaction rule: they quote
// flag values, which may be references with user:pass@ in them.
func (e *OptionsError) Error() string { return redact.Text("build: " + strings.Join(e.Problems, "; ")) }

// complete adds to a version's plan what its input decides: the C API
// crate and generation, the main package, the base image, the Go toolchain.
func (o *Options) complete(p *plan, in Input) error {
	var problems []string
	if o.CacheDir == "" {
		problems = append(problems, "no cache folder given")
	}
	if in.TreeDir == "" {
		problems = append(problems, "no patched tree given")
	}
	if len(problems) > 0 {
		return &OptionsError{Problems: problems}
	}
	p.crate, p.library, p.generation = defaultCrate, defaultLibrary, defaultGeneration
	if in.Recipe != nil && in.Recipe.CAPI != nil {
		c := in.Recipe.CAPI
		p.crate, p.library, p.generation = c.Crate, c.Library, c.Generation
	}
	if in.Recipe != nil {
		p.toolchain = in.Recipe.Toolchain
	}
	p.mainPkg = o.MainPackage
	if p.mainPkg == "" {
		p.mainPkg = "./cmd/epp"
	}
	p.baseImage = o.BaseImage
	if p.baseImage == "" {
		p.baseImage = image.DefaultBaseImage
	}
	return nil
}

// hostSystem says whether this system can compile on the host; a test
// stands in another system.
var hostSystem = compile.CheckSystem

// onResolve is called each time options are checked and their files
// read: a test counts the calls to prove that one command does it once,
// whatever its number of versions and tags.
var onResolve = func() {}

// checkOptions validates what the options alone decide: platforms, what
// to export, the image reference (n, expanded for one version), compile
// and progress modes. It reads the files the options name, decrypts the
// signing key and registers the secrets for redaction: Resolve is its one
// caller in a command.
func (o *Options) checkOptions(n naming) (*plan, []string, error) {
	onResolve()
	p := &plan{report: n.report}
	var problems []string
	if len(o.Platforms) == 0 {
		return nil, nil, platform.ErrNone
	}
	p.platforms = platform.Strings(o.Platforms)
	var err error
	if !o.Push && o.OCITar == "" {
		problems = append(problems, "nothing to export: pass --push and/or --oci-tar FILE")
	}
	problems = append(problems, o.checkImage(p, n.image)...)
	switch o.Compile {
	case "", CompileHost, CompileContainer:
	default:
		problems = append(problems, fmt.Sprintf("compile mode %q: use host or container", o.Compile))
	}
	if o.Compile == "" || o.Compile == CompileHost {
		if err := hostSystem("--compile host", "use --compile container"); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if o.Compile == CompileContainer && o.BuilderImage == "" {
		problems = append(problems, "container compile mode needs a builder image: pass --builder-image REF (Go, Rust with the std of both targets, cbindgen and the cross C compilers)")
	}
	if err := capi.CheckFeatures(o.CAPIFeatures); err != nil {
		problems = append(problems, err.Error())
	}
	if p.attest, err = attest.ParseRequest(o.Provenance, o.SBOM); err != nil {
		problems = append(problems, err.Error())
	}
	problems = append(problems, o.checkSigning(p)...)
	if p.nodes, err = nodes.Parse(o.BuildKit, o.Platforms); err != nil {
		problems = append(problems, err.Error())
	} else if p.nodes.PerPlatform && o.OCITar != "" {
		problems = append(problems, "--oci-tar needs one BuildKit node for every platform; with PLATFORM=ADDR nodes use --push")
	}
	if env := os.Getenv("BUILDKIT_HOST"); env != "" && p.nodes != nil && p.nodes.Nodes[0].Addr == "" {
		if err := nodes.CheckAddress(env); err != nil {
			problems = append(problems, "BUILDKIT_HOST: "+err.Error())
		}
	}
	if p.cacheImports, err = image.ParseCache(o.CacheFrom, image.CacheImport, o.Insecure); err != nil {
		problems = append(problems, err.Error())
	}
	if p.cacheExports, err = image.ParseCache(o.CacheTo, image.CacheExport, o.Insecure); err != nil {
		problems = append(problems, err.Error())
	}
	fetch, fetchProblems, err := o.resolveFetch()
	if err != nil {
		return nil, nil, err
	}
	p.fetch, problems = fetch, append(problems, fetchProblems...)
	problems = append(problems, o.checkCI(p)...)
	problems = append(problems, o.checkVulns(p)...)
	problems = append(problems, o.checkTags(p, n.tags)...)
	if err := o.Progress.Check(); err != nil {
		problems = append(problems, fmt.Sprintf("progress %q: use %s", o.Progress, strings.Join(progress.Modes, ", ")))
	}
	return p, problems, nil
}

// checkImage parses one version's image reference into p.
func (o *Options) checkImage(p *plan, ref string) []string {
	if ref == "" {
		return []string{"no image reference: pass --image REGISTRY/REPO:TAG"}
	}
	tag, err := name.NewTag(ref, o.nameOptions()...)
	if err != nil {
		return []string{redact.Text(fmt.Sprintf("image %q: %v (want REGISTRY/REPO:TAG, no digest)", ref, err))}
	}
	p.tag, p.repository = tag, tag.Context().Name()
	return nil
}

func (o *Options) nameOptions() []name.Option {
	if o.Insecure {
		return []name.Option{name.Insecure}
	}
	return nil
}

// bindingHeader is the header of the cgo binding for a C API generation.
func bindingHeader(generation string) string {
	return "dynamo_llm_" + generation + ".h"
}
