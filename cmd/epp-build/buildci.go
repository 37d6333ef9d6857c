package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/build"
	"github.com/epp-build/epp-build/internal/cifiles"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/recipe"
)

// ciFlags are build's CI conventions: image and tags (templates of the
// version), what-was-pushed files, and the dry run.
type ciFlags struct {
	images       []string
	tags         []string
	metadataFile string
	imageRefs    string
	dryRun       string // "", text or json
}

func (c *ciFlags) register(cmd *cobra.Command, opt *build.Options) {
	fl := cmd.Flags()
	fl.StringArrayVar(&c.images, "image", nil, "image reference to tag, REGISTRY/REPO:TAG; a template of the version ({{.Version}}); give it once")
	fl.StringArrayVarP(&c.tags, "tag", "t", nil, "another tag for the image: a tag such as latest (in --image's repository, as ko's --tags) or REGISTRY/REPO:TAG in that repository (repeatable; a template like --image)")
	fl.StringArrayVar(&opt.Labels, "label", nil, "image label KEY=VALUE over the OCI defaults (source, revision, version, created); an empty VALUE removes one (repeatable)")
	fl.StringArrayVar(&opt.Annotations, "annotation", nil, "OCI annotation [TYPE,...:]KEY=VALUE, TYPE manifest (default), index, manifest-descriptor or index-descriptor, over the defaults (repeatable)")
	fl.StringVar(&c.metadataFile, "metadata-file", "", "write what was built in buildx's metadata format (containerimage.digest, containerimage.descriptor, image.name)")
	fl.StringVar(&c.imageRefs, "image-refs", "", "write each pushed image as REPOSITORY@DIGEST, one a line (ko's --image-refs)")
	fl.StringVar(&c.dryRun, "dry-run", "", "print the plan (text or json) and do nothing: no fetch, no connection, no build")
	fl.Lookup("dry-run").NoOptDefVal = "text"
}

// dryRunArgs is build's NoArgs, except that `--dry-run json` (a space
// where the optional value needs "=") is told how to write it: the flag
// took its default and left the format as an argument.
func dryRunArgs(c *ciFlags) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 && c.dryRun != "" && (args[0] == "text" || args[0] == "json") {
			return fmt.Errorf("--dry-run %s: the format goes after an equals sign, use --dry-run=%s", args[0], args[0])
		}
		return cobra.NoArgs(cmd, args)
	}
}

// tagData are the fields a --image or --tag template may use.
type tagData struct {
	Version        string // the recipe's version, e.g. v0.7.0
	UpstreamRef    string // GAIE's ref, e.g. v0.5.1
	UpstreamCommit string
	ShortCommit    string // the first 12 hex digits of UpstreamCommit
}

func expandTag(flag, text string, r *recipe.Recipe) (string, error) {
	t, err := template.New(flag).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", usageError{fmt.Errorf("%s %q: %w", flag, text, err)}
	}
	d := tagData{Version: r.Version, UpstreamRef: r.Upstream.Ref, UpstreamCommit: r.Upstream.Commit, ShortCommit: r.Upstream.Commit}
	if len(d.ShortCommit) > 12 {
		d.ShortCommit = d.ShortCommit[:12]
	}
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", usageError{fmt.Errorf("%s %q: %w (fields: .Version, .UpstreamRef, .UpstreamCommit, .ShortCommit)", flag, text, err)}
	}
	return b.String(), nil
}

// buildRequests loads every version asked for and turns the flags into
// one request each, checking them all before any work.
func buildRequests(g *globalFlags, f *recipeFlags, c *ciFlags, opt build.Options, tree string, log io.Writer) ([]build.Request, error) {
	if len(c.images) > 1 {
		return nil, usageError{fmt.Errorf("--image given %d times: give it once and add more tags with --tag", len(c.images))}
	}
	versions := f.versions
	if len(versions) > 1 && tree != "" {
		return nil, usageError{errors.New("--tree names one version's tree: leave it out to build several versions")}
	}
	if c.imageRefs != "" && !opt.Push {
		return nil, usageError{errors.New("--image-refs lists pushed images: add --push")}
	}
	switch c.dryRun {
	case "", "text", "json":
	default:
		return nil, usageError{fmt.Errorf("--dry-run=%s: use text or json", c.dryRun)}
	}
	if len(versions) == 0 {
		versions = []string{""} // --recipe, or the usage error load gives
	}
	// The options are checked first, with a stand-in version in the
	// templates: a run that cannot succeed loads no recipe.
	placeholder := &recipe.Recipe{Version: "v0.0.0", Upstream: recipe.Upstream{Ref: "v0.0.0", Commit: strings.Repeat("0", 40)}}
	if _, err := withTags(opt, c, placeholder); err != nil {
		return nil, err
	}
	ao, err := f.options(log, false)
	if err != nil {
		return nil, err
	}
	var reqs []build.Request
	byImage, byReport := map[string]string{}, map[string]string{}
	for _, v := range versions {
		f.version = v
		r, err := f.load(g)
		if err != nil {
			return nil, err
		}
		o, err := withTags(opt, c, r)
		if err != nil {
			return nil, err
		}
		for _, tag := range o.AllTags() {
			if prev, dup := byImage[tag]; dup {
				return nil, usageError{fmt.Errorf("%s and %s would both be tagged %s: put {{.Version}} in --image and --tag", prev, r.Version, tag)}
			}
			byImage[tag] = r.Version
		}
		if o.Report != "" {
			if prev, dup := byReport[o.Report]; dup {
				return nil, usageError{fmt.Errorf("%s and %s would both write the report %s: put {{.Version}} in --report", prev, r.Version, o.Report)}
			}
			byReport[o.Report] = r.Version
		}
		reqs = append(reqs, build.Request{Recipe: r, TreeDir: tree, Apply: ao, Options: o})
	}
	recipes, err := g.recipesRecord(f.dir)
	if err != nil {
		return nil, err
	}
	for i := range reqs {
		reqs[i].Options.Recipes = recipes
	}
	return reqs, nil
}

// withTags is opt with --image and --tag expanded for r, checked.
func withTags(opt build.Options, c *ciFlags, r *recipe.Recipe) (build.Options, error) {
	var err error
	o := opt
	o.Tags = nil
	if len(c.images) == 1 {
		if o.Image, err = expandTag("--image", c.images[0], r); err != nil {
			return o, err
		}
	}
	for _, t := range c.tags {
		tag, err := expandTag("--tag", t, r)
		if err != nil {
			return o, err
		}
		if o.Image == "" {
			if build.BareTag(tag) {
				return o, usageError{fmt.Errorf("--tag %s is a tag of --image's repository: pass --image REGISTRY/REPO:TAG too", tag)}
			}
			o.Image = tag // the first --tag is the image when --image is not given
			continue
		}
		o.Tags = append(o.Tags, tag)
	}
	if o.Report != "" {
		if o.Report, err = expandTag("--report", o.Report, r); err != nil {
			return o, err
		}
	}
	return o, o.Validate()
}

// printPlans is --dry-run: each version's plan, as text or JSON (one
// object for one version, a list for several).
func printPlans(w io.Writer, format string, reqs []build.Request) error {
	var plans []*build.DryRun
	for _, req := range reqs {
		p, err := build.Plan(req)
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if len(plans) == 1 {
			return enc.Encode(plans[0])
		}
		return enc.Encode(plans)
	}
	for _, p := range plans {
		p.WriteText(w)
	}
	return nil
}

// runBuild is the build command: every version, then the CI files.
func runBuild(cmd *cobra.Command, g *globalFlags, f *recipeFlags, c *ciFlags, opt build.Options, tree string) error {
	reqs, err := buildRequests(g, f, c, opt, tree, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if c.dryRun != "" {
		return printPlans(cmd.OutOrStdout(), c.dryRun, reqs)
	}
	reps, buildErr := build.ReleaseAll(cmd.Context(), reqs)
	var builds []cifiles.Built
	for i, rep := range reps {
		o := reqs[i].Options
		tag, err := name.NewTag(o.Image, registryNameOptions(o)...)
		if err != nil {
			return err
		}
		builds = append(builds, cifiles.Built{Version: reqs[i].Recipe.Version, Repository: tag.Context().Name(),
			Tags: o.AllTags(), Digest: rep.Outputs.IndexDigest, Pushed: o.Push})
	}
	if len(builds) > 0 {
		ro := image.RegistryOptions{Insecure: opt.Insecure}
		if c.metadataFile != "" {
			if err := cifiles.WriteMetadata(cmd.Context(), c.metadataFile, builds, ro); err != nil && buildErr == nil {
				return err
			}
		}
		if c.imageRefs != "" {
			if err := cifiles.WriteImageRefs(c.imageRefs, builds); err != nil && buildErr == nil {
				return err
			}
		}
	}
	return buildErr
}

func registryNameOptions(o build.Options) []name.Option {
	if o.Insecure {
		return []name.Option{name.Insecure}
	}
	return nil
}
