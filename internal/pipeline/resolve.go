package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/epp-build/epp-build/internal/apply"
	"github.com/epp-build/epp-build/internal/nodes"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/report"
)

// Resolved are a command's build options checked once, with everything
// they name read: the --ca-bundle and --secret files, the signing key
// (decrypted) and the credentials among them registered for redaction.
// Preflight, Release, Run and the dry run of every version take it, so
// building several versions with several tags reads and decrypts nothing
// again, and no version can see other settings than the next.
type Resolved struct {
	opt Options
	// base is what the options decide for every version; its image and
	// tags are the stand-in version's, replaced in each version's plan.
	base *plan
}

// standIn is the version the templates are checked with before any
// recipe is loaded: a run that cannot succeed loads none.
var standIn = &recipe.Recipe{Version: "v0.0.0", Upstream: recipe.Upstream{Ref: "v0.0.0", Commit: strings.Repeat("0", 40)}}

// Resolve checks opt and reads what it names, once for a command. No
// platform is platform.ErrNone, a refused input file an *inputfile.Error,
// anything else wrong an *OptionsError listing every problem.
func Resolve(opt Options) (*Resolved, error) {
	n, err := opt.naming(standIn)
	if err != nil {
		return nil, err
	}
	p, problems, err := opt.checkOptions(n)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, &OptionsError{Problems: problems}
	}
	return &Resolved{opt: opt, base: p}, nil
}

// TagData are the fields an --image, --tag or --report template may use.
type TagData struct {
	Version        string // the recipe's version, e.g. v0.7.0
	UpstreamRef    string // GAIE's ref, e.g. v0.5.1
	UpstreamCommit string
	ShortCommit    string // the first 12 hex digits of UpstreamCommit
}

// naming is what the templates give for one version.
type naming struct {
	image  string
	tags   []string
	report string
}

// naming expands Image, Tags and Report for r; with no Image the first
// tag is the image, unless it is a bare tag, which has no repository.
func (o *Options) naming(r *recipe.Recipe) (naming, error) {
	d := TagData{}
	if r != nil {
		d = TagData{Version: r.Version, UpstreamRef: r.Upstream.Ref, UpstreamCommit: r.Upstream.Commit, ShortCommit: r.Upstream.Commit}
		if len(d.ShortCommit) > 12 {
			d.ShortCommit = d.ShortCommit[:12]
		}
	}
	var n naming
	var err error
	if n.image, err = expand("--image", o.Image, d); err != nil {
		return n, err
	}
	for _, t := range o.Tags {
		tag, err := expand("--tag", t, d)
		if err != nil {
			return n, err
		}
		if n.image == "" {
			if BareTag(tag) {
				return n, &OptionsError{Problems: []string{fmt.Sprintf("--tag %s is a tag of --image's repository: pass --image REGISTRY/REPO:TAG too", tag)}}
			}
			n.image = tag
			continue
		}
		n.tags = append(n.tags, tag)
	}
	n.report, err = expand("--report", o.Report, d)
	return n, err
}

func expand(flag, text string, d TagData) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	t, err := template.New(flag).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", &OptionsError{Problems: []string{fmt.Sprintf("%s %q: %v", flag, text, err)}}
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", &OptionsError{Problems: []string{fmt.Sprintf("%s %q: %v (fields: .Version, .UpstreamRef, .UpstreamCommit, .ShortCommit)", flag, text, err)}}
	}
	return b.String(), nil
}

// forVersion is the plan of r's build: the resolved one with r's image,
// tags and report, and node connections of its own.
func (b *Resolved) forVersion(r *recipe.Recipe) (*plan, error) {
	n, err := b.opt.naming(r)
	if err != nil {
		return nil, err
	}
	p := *b.base
	p.report = n.report
	problems := b.opt.checkImage(&p, n.image)
	problems = append(problems, b.opt.checkTags(&p, n.tags)...)
	if len(problems) > 0 {
		return nil, &OptionsError{Problems: problems}
	}
	p.nodes = cloneNodes(b.base.nodes)
	return &p, nil
}

// forVersions are the plans of every request, refusing two versions that
// would set the same tag or write the same report.
func (b *Resolved) forVersions(reqs []Request) ([]*plan, error) {
	var plans []*plan
	byTag, byReport := map[string]string{}, map[string]string{}
	for _, req := range reqs {
		p, err := b.forVersion(req.Recipe)
		if err != nil {
			return nil, err
		}
		v := versionOf(req.Recipe)
		for _, tag := range p.allTags() {
			if prev, dup := byTag[tag]; dup {
				return nil, &OptionsError{Problems: []string{fmt.Sprintf("%s and %s would both be tagged %s: put {{.Version}} in --image and --tag", prev, v, tag)}}
			}
			byTag[tag] = v
		}
		if p.report != "" {
			if prev, dup := byReport[p.report]; dup {
				return nil, &OptionsError{Problems: []string{fmt.Sprintf("%s and %s would both write the report %s: put {{.Version}} in --report", prev, v, p.report)}}
			}
			byReport[p.report] = v
		}
		plans = append(plans, p)
	}
	return plans, nil
}

// allTags are every tag the version's build sets: the image's, then
// --tag's.
func (p *plan) allTags() []string {
	if p.repository == "" {
		return nil
	}
	out := []string{p.tag.String()}
	for _, t := range p.ci.extraTags {
		out = append(out, t.String())
	}
	return out
}

// cloneNodes copies a parsed node plan without its connections: each
// build connects (and closes) its own.
func cloneNodes(p *nodes.Plan) *nodes.Plan {
	if p == nil {
		return nil
	}
	c := &nodes.Plan{PerPlatform: p.PerPlatform}
	for _, n := range p.Nodes {
		c.Nodes = append(c.Nodes, &nodes.Node{Addr: n.Addr, Platforms: n.Platforms})
	}
	return c
}

func versionOf(r *recipe.Recipe) string {
	if r == nil {
		return ""
	}
	return r.Version
}

// Job is one build command: its options, then the versions to build.
type Job struct {
	Options Options
	// Versions are loaded with Load after the options are resolved; none
	// means Load("") (a --recipe folder).
	Versions []string
	Load     func(version string) (*recipe.Recipe, error)
	// RecipeSet says where the recipes came from, for the reports; nil
	// leaves that out.
	RecipeSet func() (*report.Recipes, error)
	// TreeDir keeps the one version's applied tree (see Request).
	TreeDir string
	Apply   apply.Options
	// DryRun plans every version and does nothing.
	DryRun bool
}

// Outcome is what a Job did.
type Outcome struct {
	Plans []*DryRun // with Job.DryRun: each version's plan
	// Built are the versions built, in order; when one fails, those built
	// before it.
	Built []Built
}

// Built is one version a command built and where it went.
type Built struct {
	Version    string
	Repository string
	Tags       []string // the image's, then --tag's
	Pushed     bool
	Report     *report.Report
}

// Build runs a build command: the options are resolved once, every
// version is loaded and planned (templates expanded, no tag or report
// shared by two), then all are planned for a dry run, or preflighted and
// built in turn.
func Build(ctx context.Context, job Job) (*Outcome, error) {
	if len(job.Versions) > 1 && job.TreeDir != "" {
		return nil, &OptionsError{Problems: []string{"--tree names one version's tree: leave it out to build several versions"}}
	}
	b, err := Resolve(job.Options)
	if err != nil {
		return nil, err
	}
	if job.Load == nil {
		return nil, errors.New("build: no recipe loader")
	}
	versions := job.Versions
	if len(versions) == 0 {
		versions = []string{""}
	}
	var reqs []Request
	for _, v := range versions {
		r, err := job.Load(v)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, Request{Recipe: r, TreeDir: job.TreeDir, Apply: job.Apply})
	}
	if job.RecipeSet != nil {
		if b.opt.Recipes, err = job.RecipeSet(); err != nil {
			return nil, err
		}
	}
	if job.DryRun {
		plans, err := Plans(b, reqs)
		return &Outcome{Plans: plans}, err
	}
	built, err := ReleaseAll(ctx, b, reqs)
	return &Outcome{Built: built}, err
}
