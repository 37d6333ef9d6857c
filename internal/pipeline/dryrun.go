package pipeline

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
)

// DryRun is what a build would do, from the flags and the recipe alone:
// nothing is fetched, connected or compiled (the preflight does not run).
type DryRun struct {
	Version     string            `json:"version"`
	Upstream    DryRunPin         `json:"upstream"`
	Patches     []string          `json:"patches"`
	CAPI        DryRunCAPI        `json:"capi"`
	Compile     string            `json:"compile"`
	Builder     string            `json:"builderImage,omitempty"`
	BaseImage   string            `json:"baseImage"`
	Nodes       []DryRunNode      `json:"nodes"`
	Push        bool              `json:"push"`
	OCITar      string            `json:"ociTar,omitempty"`
	Tags        []string          `json:"tags"`
	Provenance  string            `json:"provenance"`
	SBOM        string            `json:"sbom"`
	CacheFrom   []string          `json:"cacheFrom,omitempty"`
	CacheTo     []string          `json:"cacheTo,omitempty"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Report      string            `json:"report,omitempty"`
	SignKey     string            `json:"signKey,omitempty"`
	Steps       []string          `json:"steps"`
}

// DryRunPin is a repository at a ref and commit.
type DryRunPin struct {
	Repository string `json:"repository"`
	Ref        string `json:"ref"`
	Commit     string `json:"commit"`
}

// DryRunCAPI is where the C API would come from.
type DryRunCAPI struct {
	Source string     `json:"source"` // pin or local
	Pin    *DryRunPin `json:"pin,omitempty"`
	Dir    string     `json:"dir,omitempty"`
	Crate  string     `json:"crate,omitempty"`
}

// DryRunNode is one BuildKit node and the platforms it would build.
type DryRunNode struct {
	Address   string   `json:"address"`
	Platforms []string `json:"platforms"`
}

// Plans describes what ReleaseAll would do with reqs, refusing what it
// refuses before the preflight.
func Plans(b *Resolved, reqs []Request) ([]*DryRun, error) {
	plans, err := b.forVersions(reqs)
	if err != nil {
		return nil, err
	}
	var out []*DryRun
	for i, req := range reqs {
		d, err := b.dryRun(plans[i], req)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Plan describes what Release would do with req.
func Plan(b *Resolved, req Request) (*DryRun, error) {
	p, err := b.forVersion(req.Recipe)
	if err != nil {
		return nil, err
	}
	return b.dryRun(p, req)
}

func (b *Resolved) dryRun(p *plan, req Request) (*DryRun, error) {
	opt, r := b.opt, req.Recipe
	d := &DryRun{Compile: opt.Compile, Builder: opt.BuilderImage, BaseImage: p.baseImageOr(opt.BaseImage),
		Push: opt.Push, OCITar: opt.OCITar, Tags: p.allTags(), Report: p.report, SignKey: opt.SignKey, Patches: []string{}}
	if d.Compile == "" {
		d.Compile = CompileHost
	}
	in := Input{Recipe: r}
	if r != nil {
		d.Version = r.Version
		d.Upstream = DryRunPin{Repository: redact.URL(r.Upstream.Repository), Ref: r.Upstream.Ref, Commit: r.Upstream.Commit}
		for _, s := range r.Series {
			d.Patches = append(d.Patches, s.Name)
		}
		in.Repository, in.UpstreamCommit = d.Upstream.Repository, r.Upstream.Commit
	}
	switch {
	case opt.CAPISrc != "":
		d.CAPI = DryRunCAPI{Source: "local", Dir: opt.CAPISrc}
	case r != nil && r.CAPI != nil:
		d.CAPI = DryRunCAPI{Source: "pin", Crate: r.CAPI.Crate, Dir: r.CAPI.Dir,
			Pin: &DryRunPin{Repository: redact.URL(r.CAPI.Repository), Ref: r.CAPI.Ref, Commit: r.CAPI.Commit}}
	default:
		return nil, ErrNoCAPI
	}
	for _, n := range p.nodes.Nodes {
		addr := n.Addr
		if addr == "" {
			if addr = os.Getenv("BUILDKIT_HOST"); addr == "" {
				addr = "$BUILDKIT_HOST (not set: pass --buildkit)"
			}
		}
		d.Nodes = append(d.Nodes, DryRunNode{Address: redact.URL(addr), Platforms: n.Platforms})
	}
	d.Provenance = "false"
	if p.attest.Provenance {
		d.Provenance = "mode=" + p.attest.ProvenanceMode
	}
	d.SBOM = "false"
	if gen := p.attest.GeneratorImage(); gen != "" {
		d.SBOM = "generator=" + gen
	}
	for _, c := range p.cacheImports {
		d.CacheFrom = append(d.CacheFrom, image.DescribeCache(c))
	}
	for _, c := range p.cacheExports {
		d.CacheTo = append(d.CacheTo, image.DescribeCache(c))
	}
	d.Labels, d.Annotations = p.imageMetadata(in)
	d.Steps = dryRunSteps(d, p.nodes.PerPlatform)
	return d, nil
}

func dryRunSteps(d *DryRun, perNode bool) []string {
	steps := []string{
		"preflight: BuildKit nodes, images, registry and C API source reachable",
		fmt.Sprintf("apply %s: fetch %s at %s, apply %d patch(es)", d.Version, d.Upstream.Repository, d.Upstream.Ref, len(d.Patches)),
	}
	if d.CAPI.Source == "pin" {
		steps = append(steps, fmt.Sprintf("fetch the C API pin %s at %s", d.CAPI.Pin.Repository, d.CAPI.Pin.Ref))
	}
	where := "here (host)"
	if d.Compile == CompileContainer {
		where = "inside the solve in " + d.Builder
	}
	steps = append(steps, "compile the C API and the EPP "+where)
	solve := "one solve for every platform"
	if perNode {
		solve = "one solve per node, joined into one index"
	}
	steps = append(steps, solve+" with provenance "+d.Provenance+" and SBOM "+d.SBOM)
	if d.Push {
		sign := ""
		if d.SignKey != "" {
			sign = ", sign it with " + d.SignKey
		}
		steps = append(steps, "push by digest, verify, attach the report attestation"+sign+", smoke-run, then tag "+strings.Join(d.Tags, ", "))
	}
	if d.OCITar != "" {
		steps = append(steps, "write the OCI tarball "+d.OCITar)
	}
	return steps
}

// WriteText prints the plan for a person.
func (d *DryRun) WriteText(w io.Writer) {
	fmt.Fprintf(w, "dry run: %s (nothing fetched, connected or built)\n", d.Version)
	fmt.Fprintf(w, "  upstream:    %s %s (%s)\n", d.Upstream.Repository, d.Upstream.Ref, d.Upstream.Commit)
	fmt.Fprintf(w, "  patches:     %d\n", len(d.Patches))
	if d.CAPI.Pin != nil {
		fmt.Fprintf(w, "  C API:       pin %s %s (%s), crate %s in %s\n", d.CAPI.Pin.Repository, d.CAPI.Pin.Ref, d.CAPI.Pin.Commit, d.CAPI.Crate, d.CAPI.Dir)
	} else {
		fmt.Fprintf(w, "  C API:       local %s\n", d.CAPI.Dir)
	}
	fmt.Fprintf(w, "  compile:     %s\n", d.Compile)
	if d.Builder != "" {
		fmt.Fprintf(w, "  builder:     %s\n", d.Builder)
	}
	fmt.Fprintf(w, "  base image:  %s\n", d.BaseImage)
	for _, n := range d.Nodes {
		fmt.Fprintf(w, "  node:        %s builds %s\n", n.Address, strings.Join(n.Platforms, ","))
	}
	fmt.Fprintf(w, "  tags:        %s (push: %v)\n", strings.Join(d.Tags, ", "), d.Push)
	if d.OCITar != "" {
		fmt.Fprintf(w, "  OCI tarball: %s\n", d.OCITar)
	}
	fmt.Fprintf(w, "  provenance:  %s\n  sbom:        %s\n", d.Provenance, d.SBOM)
	if d.SignKey != "" {
		fmt.Fprintf(w, "  sign key:    %s\n", d.SignKey)
	}
	for _, c := range d.CacheFrom {
		fmt.Fprintf(w, "  cache from:  %s\n", c)
	}
	for _, c := range d.CacheTo {
		fmt.Fprintf(w, "  cache to:    %s\n", c)
	}
	for _, k := range slices.Sorted(maps.Keys(d.Labels)) {
		fmt.Fprintf(w, "  label:       %s=%s\n", k, d.Labels[k])
	}
	for _, k := range slices.Sorted(maps.Keys(d.Annotations)) {
		fmt.Fprintf(w, "  annotation:  %s=%s\n", k, d.Annotations[k])
	}
	fmt.Fprintln(w, "  steps:")
	for i, s := range d.Steps {
		fmt.Fprintf(w, "    %d. %s\n", i+1, s)
	}
}
