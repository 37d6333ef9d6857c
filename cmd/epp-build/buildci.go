package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/epp-build/epp-build/internal/cifiles"
	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/pipeline"
	"github.com/epp-build/epp-build/internal/recipe"
	"github.com/epp-build/epp-build/internal/report"
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

func (c *ciFlags) register(cmd *cobra.Command, opt *pipeline.Options) {
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

// buildJob turns the flags into the build stage's job; the templates,
// the options and the versions are checked there, in that order.
func buildJob(g *globalFlags, f *recipeFlags, c *ciFlags, opt pipeline.Options, tree string, log io.Writer) (pipeline.Job, error) {
	if len(c.images) > 1 {
		return pipeline.Job{}, usageError{fmt.Errorf("--image given %d times: give it once and add more tags with --tag", len(c.images))}
	}
	if c.imageRefs != "" && !opt.Push {
		return pipeline.Job{}, usageError{errors.New("--image-refs lists pushed images: add --push")}
	}
	switch c.dryRun {
	case "", "text", "json":
	default:
		return pipeline.Job{}, usageError{fmt.Errorf("--dry-run=%s: use text or json", c.dryRun)}
	}
	if len(c.images) == 1 {
		opt.Image = c.images[0]
	}
	opt.Tags = c.tags
	ao, err := f.options(log, false)
	if err != nil {
		return pipeline.Job{}, err
	}
	return pipeline.Job{
		Options: opt, Versions: f.versions, TreeDir: tree, Apply: ao, DryRun: c.dryRun != "",
		Load: func(v string) (*recipe.Recipe, error) {
			f.version = v // "" with --recipe
			return f.load(g)
		},
		RecipeSet: func() (*report.Recipes, error) { return g.recipesRecord(f.dir) },
	}, nil
}

// printPlans is --dry-run: each version's plan, as text or JSON (one
// object for one version, a list for several).
func printPlans(w io.Writer, format string, plans []*pipeline.DryRun) error {
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

// runBuild is the build command: every version, then the CI files of
// those built.
func runBuild(cmd *cobra.Command, g *globalFlags, f *recipeFlags, c *ciFlags, opt pipeline.Options, tree string) error {
	job, err := buildJob(g, f, c, opt, tree, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	out, buildErr := pipeline.Build(cmd.Context(), job)
	if out == nil {
		return buildErr
	}
	if c.dryRun != "" {
		if buildErr != nil {
			return buildErr
		}
		return printPlans(cmd.OutOrStdout(), c.dryRun, out.Plans)
	}
	return writeCIFiles(cmd, c, opt, out.Built, buildErr)
}

// writeCIFiles writes --metadata-file and --image-refs for the versions
// built; the build's own error wins over theirs.
func writeCIFiles(cmd *cobra.Command, c *ciFlags, opt pipeline.Options, built []pipeline.Built, buildErr error) error {
	var builds []cifiles.Built
	for _, b := range built {
		builds = append(builds, cifiles.Built{Version: b.Version, Repository: b.Repository,
			Tags: b.Tags, Digest: b.Report.Outputs.IndexDigest, Pushed: b.Pushed})
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
