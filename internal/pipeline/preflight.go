package pipeline

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/epp-build/epp-build/internal/capi"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/source"
)

// preflightTimeout bounds each check: a silent server is reported as
// missing, not waited for.
const preflightTimeout = 20 * time.Second

// Missing is one external thing the build needs that is not there, and the
// flag that changes it.
type Missing struct {
	What string // "BuildKit node linux/arm64 at tcp://arm:1234"
	Err  error
	Fix  string // "--buildkit PLATFORM=ADDR or BUILDKIT_HOST"
}

// PreflightError lists everything a build needs that is missing, found
// before any fetch or compile.
type PreflightError struct{ Missing []Missing }

func (e *PreflightError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "preflight: %d thing(s) this build needs are missing or unreachable; nothing was fetched or built:", len(e.Missing))
	for _, m := range e.Missing {
		fmt.Fprintf(&b, "\n  - %s: %s\n    change it with: %s", m.What, strings.ReplaceAll(m.Err.Error(), "\n", "\n      "), m.Fix)
	}
	return redact.Text(b.String())
}

// Preflight checks every external thing the request's build will need, at
// once: each BuildKit node answers; the images the solve pulls (builder,
// SBOM generator, base) resolve on the node that pulls them; the registry
// takes a push to the image's repository; the C API source is there (the
// local --capi-src, or the pin cached or its repository answering). It
// returns a *PreflightError listing all that are missing, or nil.
func Preflight(ctx context.Context, b *Resolved, req Request) error {
	p, err := b.forVersion(req.Recipe)
	if err != nil {
		return err
	}
	return b.preflight(ctx, p, req)
}

// preflight is Preflight of one version's plan.
func (b *Resolved) preflight(ctx context.Context, p *plan, req Request) error {
	opt := b.opt
	var (
		mu      sync.Mutex
		missing []Missing
		wg      sync.WaitGroup
	)
	add := func(m Missing) {
		mu.Lock()
		missing = append(missing, m)
		mu.Unlock()
	}
	check := func(f func(ctx context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, preflightTimeout)
			defer cancel()
			f(cctx)
		}()
	}

	images := map[string]string{} // image -> flag that names it
	if opt.Compile == CompileContainer && opt.BuilderImage != "" {
		images[opt.BuilderImage] = "--builder-image REF"
	}
	if gen := p.attest.GeneratorImage(); gen != "" {
		images[gen] = "--sbom generator=IMAGE (a generator in a registry BuildKit can reach) or --sbom=false"
	}
	base := p.baseImageOr(opt.BaseImage)
	if base != "scratch" {
		images[base] = "--base-image REF"
	}
	var refs []string
	for ref := range images {
		refs = append(refs, ref)
	}
	seen := map[string]bool{}
	for _, n := range p.nodes.Nodes {
		n := n
		check(func(ctx context.Context) {
			addr, err := image.Address(n.Addr)
			what := "BuildKit node"
			if p.nodes.PerPlatform {
				what += " for " + strings.Join(n.Platforms, ",")
			}
			if err != nil {
				add(Missing{What: what, Err: err, Fix: "--buildkit ADDR (or PLATFORM=ADDR per platform), or BUILDKIT_HOST"})
				return
			}
			what += " at " + redact.URL(addr)
			c, err := image.Connect(ctx, addr, opt.TLS)
			if err != nil {
				add(Missing{What: what, Err: err, Fix: "--buildkit ADDR (or PLATFORM=ADDR per platform), BUILDKIT_HOST, --tls-*"})
				return
			}
			defer c.Close()
			failed, err := image.ResolveImages(ctx, c, refs, n.Platforms[0], authn.DefaultKeychain)
			if err != nil {
				add(Missing{What: what, Err: err, Fix: "--buildkit"})
				return
			}
			for _, ref := range refs {
				if ferr, ok := failed[ref]; ok {
					mu.Lock()
					dup := seen[ref]
					seen[ref] = true
					mu.Unlock()
					if !dup {
						add(Missing{What: "image " + redact.URL(ref) + " (resolved by the BuildKit node at " + redact.URL(addr) + ")", Err: ferr, Fix: images[ref]})
					}
				}
			}
		})
	}
	if opt.Push && p.repository != "" {
		check(func(ctx context.Context) {
			if err := remote.CheckPushPermission(p.tag, authn.DefaultKeychain, ctxTransport{ctx}); err != nil {
				add(Missing{What: "registry " + p.tag.RegistryStr() + " (push to " + p.repository + ")", Err: err,
					Fix: "--image REGISTRY/REPO:TAG, --insecure for a plain-HTTP registry, credentials with `docker login` or DOCKER_CONFIG"})
			}
		})
	}
	check(func(ctx context.Context) {
		if m, ok := capiMissing(ctx, opt, req); !ok {
			add(m)
		}
	})
	wg.Wait()
	if len(missing) == 0 {
		return nil
	}
	sortMissing(missing)
	return &PreflightError{Missing: missing}
}

// capiMissing checks the C API source: --capi-src is a crate or a checkout
// of the pin; else the pin is cached or its repository answers.
func capiMissing(ctx context.Context, opt Options, req Request) (Missing, bool) {
	r := req.Recipe
	if opt.CAPISrc != "" {
		var pin *recipe.CAPI
		if r != nil {
			pin = r.CAPI
		}
		if _, err := capi.Local(opt.CAPISrc, pin); err != nil {
			return Missing{What: "C API source", Err: err, Fix: "--capi-src DIR"}, false
		}
		return Missing{}, true
	}
	if r == nil || r.CAPI == nil {
		return Missing{What: "C API source", Err: ErrNoCAPI, Fix: "--capi-src DIR"}, false
	}
	if source.GitCached(ctx, req.Apply.CacheDir, r.CAPI.Commit) {
		return Missing{}, true
	}
	if err := source.Reachable(ctx, r.CAPI.Repository, preflightTimeout); err != nil {
		return Missing{What: "C API pin " + redact.URL(r.CAPI.Repository) + "@" + r.CAPI.Ref, Err: &capi.PinUnreachableError{Pin: r.CAPI, Err: err},
			Fix: "--capi-src DIR (a checkout of the pin, or a crate folder that provides the same C API)"}, false
	}
	return Missing{}, true
}

func (p *plan) baseImageOr(flag string) string {
	if flag != "" {
		return flag
	}
	return image.DefaultBaseImage
}

// sortMissing orders the list as the build would meet them: BuildKit,
// images, registry, C API.
func sortMissing(ms []Missing) {
	rank := func(m Missing) string {
		for i, prefix := range []string{"BuildKit", "image", "registry", "C API"} {
			if strings.HasPrefix(m.What, prefix) {
				return fmt.Sprint(i) + m.What
			}
		}
		return "9" + m.What
	}
	sort.SliceStable(ms, func(i, j int) bool { return rank(ms[i]) < rank(ms[j]) })
}

// ctxTransport bounds go-containerregistry's requests (CheckPushPermission
// takes no context) by the check's deadline.
type ctxTransport struct{ ctx context.Context }

func (t ctxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return http.DefaultTransport.RoundTrip(r.WithContext(t.ctx))
}
