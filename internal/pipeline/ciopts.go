package pipeline

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
)

// The OCI annotation keys every image gets by default, as labels and as
// annotations of the index and of each platform manifest.
const (
	OCISource   = "org.opencontainers.image.source"
	OCIRevision = "org.opencontainers.image.revision"
	OCIVersion  = "org.opencontainers.image.version"
	OCICreated  = "org.opencontainers.image.created"
)

// ciSettings are the CI conventions' options parsed: more tags, labels
// and annotations.
type ciSettings struct {
	extraTags   []name.Tag
	labels      map[string]string // --label, over the defaults
	annotations map[string]string // --annotation as exporter attributes
}

// checkCI validates --label and --annotation; it returns the problems
// found.
func (o *Options) checkCI(p *plan) []string {
	var problems []string
	var err error
	if p.ci.labels, err = image.ParseLabels(o.Labels); err != nil {
		problems = append(problems, err.Error())
	}
	if p.ci.annotations, err = image.ParseAnnotations(o.Annotations); err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

// checkTags parses one version's --tag values (expanded) into p, against
// its image reference; it returns the problems found.
func (o *Options) checkTags(p *plan, tags []string) []string {
	var problems []string
	p.ci.extraTags = nil
	for _, t := range tags {
		ref := t
		if BareTag(t) {
			if p.repository == "" {
				continue // the image's own problem is reported
			}
			ref = p.repository + ":" + t
		}
		tag, err := name.NewTag(ref, o.nameOptions()...)
		if err != nil {
			problems = append(problems, redact.Text(fmt.Sprintf("tag %q: %v (want a tag such as latest, or REGISTRY/REPO:TAG in --image's repository)", t, err)))
			continue
		}
		if p.repository != "" && tag.Context().Name() != p.repository {
			// The report attestation is a referrer in the image's own
			// repository; a copy elsewhere would not verify.
			problems = append(problems, redact.Text(fmt.Sprintf("tag %q: another repository than --image's %s; every tag of a build is in the image's repository (give only the tag, such as --tag %s)", t, p.repository, tag.TagStr())))
			continue
		}
		p.ci.extraTags = append(p.ci.extraTags, tag)
	}
	return problems
}

// BareTag reports whether a --tag value is only a tag (latest, v0.7.0):
// no registry or repository part. Such a value is a tag of --image's
// repository, as ko's --tags are, never Docker Hub's library/NAME.
func BareTag(t string) bool {
	return t != "" && !strings.ContainsAny(t, "/:@")
}

// imageMetadata is what the solve writes into the image: the OCI defaults
// (source: the recipe's upstream repository, revision: its commit, version: the
// recipe's, created: SOURCE_DATE_EPOCH, so the image stays reproducible)
// as labels and as index and manifest annotations, then --label and
// --annotation over them. A user value that is empty removes the key.
func (p *plan) imageMetadata(in Input) (labels, annotations map[string]string) {
	defaults := map[string]string{OCISource: in.Repository, OCIRevision: in.UpstreamCommit}
	if in.Recipe != nil {
		defaults[OCIVersion] = in.Recipe.Version
		// The recipe's repository, not where this build fetched the
		// tree from (a mirror, or the module proxy, whose tree is
		// checked to be the same commit).
		if repo := in.Recipe.Upstream.Repository; repo != "" {
			defaults[OCISource] = redact.URL(repo)
		}
	}
	if !in.UpstreamTime.IsZero() {
		defaults[OCICreated] = in.UpstreamTime.UTC().Format(time.RFC3339)
	}
	labels, annotations = map[string]string{}, map[string]string{}
	for k, v := range defaults {
		if v == "" {
			continue
		}
		labels[k] = v
		annotations["annotation-index."+k] = v
		annotations["annotation-manifest."+k] = v
	}
	maps.Copy(labels, p.ci.labels)
	maps.Copy(annotations, p.ci.annotations)
	maps.DeleteFunc(labels, func(_, v string) bool { return v == "" })
	maps.DeleteFunc(annotations, func(_, v string) bool { return v == "" })
	return labels, annotations
}
