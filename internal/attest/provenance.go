package attest

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/redact"
	"github.com/epp-build/epp-build/internal/report"
)

// epp-build's own SLSA provenance completes BuildKit's. BuildKit's (one
// per platform, inside the index) knows the build contexts only by name and
// the images it pulled by digest; it cannot know the upstream commit, the
// patches, the C API or the Go modules, which epp-build resolved before
// the solve. Ours is a second in-toto statement, SLSA provenance v1, about
// the index and every platform image, attached to the index as a referrer
// beside the report: every input by digest, BuildKit's resolved
// dependencies (builder, base and SBOM-generator images) copied from its
// provenance, and BuildKit's provenance statements themselves as
// byproducts. It has no timestamps or invocation ID: the same inputs give
// the same statement.
const (
	// SLSAProvenanceV1 is the predicate type of our provenance.
	SLSAProvenanceV1 = "https://slsa.dev/provenance/v1"
	// BuildType names how epp-build builds, for SLSA's buildType.
	BuildType = "https://github.com/epp-build/epp-build/build/v1"
	// BuilderID is SLSA's builder.id for epp-build.
	BuilderID = "https://github.com/epp-build/epp-build"
)

// ProvenanceStatement is an in-toto v1 statement with an SLSA v1
// provenance predicate.
type ProvenanceStatement struct {
	Type          string     `json:"_type"`
	Subject       []Subject  `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     Provenance `json:"predicate"`
}

// Provenance is SLSA provenance v1.
type Provenance struct {
	BuildDefinition BuildDefinition `json:"buildDefinition"`
	RunDetails      RunDetails      `json:"runDetails"`
}

// BuildDefinition is SLSA's buildDefinition.
type BuildDefinition struct {
	BuildType            string               `json:"buildType"`
	ExternalParameters   map[string]any       `json:"externalParameters"`
	InternalParameters   map[string]any       `json:"internalParameters,omitempty"`
	ResolvedDependencies []ResourceDescriptor `json:"resolvedDependencies"`
}

// RunDetails is SLSA's runDetails, without timestamps.
type RunDetails struct {
	Builder    Builder              `json:"builder"`
	Byproducts []ResourceDescriptor `json:"byproducts,omitempty"`
}

// Builder is SLSA's builder.
type Builder struct {
	ID      string            `json:"id"`
	Version map[string]string `json:"version,omitempty"`
}

// ResourceDescriptor is in-toto's ResourceDescriptor.
type ResourceDescriptor struct {
	Name        string            `json:"name,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Digest      map[string]string `json:"digest,omitempty"`
	MediaType   string            `json:"mediaType,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NewProvenance makes our provenance for the index img (read back from the
// registry, with BuildKit's provenance per platform) from the build's
// inputs; builderVersion is epp-build's version.
func NewProvenance(img *Image, in report.Inputs, builderVersion string) (*ProvenanceStatement, error) {
	_, hex, ok := strings.Cut(img.IndexDigest, ":")
	if !ok {
		return nil, fmt.Errorf("provenance: index digest %q is not sha256:<hex>", img.IndexDigest)
	}
	subjects := []Subject{{Name: img.Repository, Digest: map[string]string{"sha256": hex}}}
	for _, p := range img.Platforms {
		_, h, _ := strings.Cut(p.Digest, ":")
		subjects = append(subjects, Subject{Name: img.Repository + "?platform=" + p.Platform, Digest: map[string]string{"sha256": h}})
	}
	deps := inputDependencies(in)
	var byproducts []ResourceDescriptor
	seen := map[string]bool{}
	for _, p := range img.Platforms {
		bp := p.buildkitProvenance
		if bp == nil {
			continue
		}
		_, h, _ := strings.Cut(bp.digest, ":")
		byproducts = append(byproducts, ResourceDescriptor{Name: "buildkit-provenance/" + p.Platform, MediaType: MediaType,
			Digest: map[string]string{"sha256": h}})
		for _, d := range buildkitDependencies(bp.data) {
			key := d.URI + fmt.Sprint(d.Digest)
			if seen[key] {
				continue
			}
			seen[key] = true
			d.Annotations = map[string]string{"resolvedBy": "buildkit"}
			deps = append(deps, d)
		}
	}
	t := in.Toolchains
	internal := map[string]any{"sourceDateEpoch": in.SourceDateEpoch, "toolchains": t}
	external := map[string]any{"version": in.Version, "platforms": in.Platforms, "compileMode": t.CompileMode}
	if t.BaseImage != "" {
		external["baseImage"] = t.BaseImage
	}
	if t.BuilderImage != "" {
		external["builderImage"] = t.BuilderImage
	}
	if len(in.CAPI.CargoFeatures) > 0 {
		external["capiCargoFeatures"] = in.CAPI.CargoFeatures
	}
	version := map[string]string{"epp-build": builderVersion}
	if t.BuildKit != "" {
		version["buildkit"] = t.BuildKit
	}
	return &ProvenanceStatement{
		Type:          StatementType,
		Subject:       subjects,
		PredicateType: SLSAProvenanceV1,
		Predicate: Provenance{
			BuildDefinition: BuildDefinition{BuildType: BuildType, ExternalParameters: external, InternalParameters: internal,
				ResolvedDependencies: deps},
			RunDetails: RunDetails{Builder: Builder{ID: BuilderID, Version: version}, Byproducts: byproducts},
		},
	}, nil
}

// inputDependencies are the inputs epp-build resolved, each by digest:
// the upstream commit (and its module version), every patch's SHA-256,
// the C API commit or tree and its patches, and every Go module's hash.
func inputDependencies(in report.Inputs) []ResourceDescriptor {
	upstream := ResourceDescriptor{Name: "upstream", URI: gitURI(in.Upstream, in.UpstreamCommit),
		Digest: map[string]string{"gitCommit": in.UpstreamCommit}}
	if m := in.Module; m != nil {
		upstream.Annotations = map[string]string{"module": m.Path, "version": m.Version}
	}
	deps := []ResourceDescriptor{upstream}
	for _, p := range in.Patches {
		deps = append(deps, ResourceDescriptor{Name: "patch/" + p.Name, Digest: map[string]string{"sha256": p.SHA256}})
	}
	if r := in.Recipes; r != nil {
		deps = append(deps, recipesDependency(r))
	}
	c := in.CAPI
	capiDigest := map[string]string{}
	if c.Commit != "" {
		capiDigest["gitCommit"] = c.Commit
	}
	if c.TreeHash != "" {
		// epp-build's fingerprint of the crate's files (no target/, .git).
		capiDigest["eppbuildtree"] = c.TreeHash
	}
	capiDep := ResourceDescriptor{Name: "capi", URI: gitURI(c.Repository, c.Commit), Digest: capiDigest,
		Annotations: map[string]string{"source": c.Source, "crate": c.Crate}}
	if c.Version != "" {
		capiDep.Annotations["version"] = c.Version
	}
	if c.Library != "" {
		capiDep.Annotations["library"] = c.Library
	}
	deps = append(deps, capiDep)
	for _, p := range c.Patches {
		deps = append(deps, ResourceDescriptor{Name: "capi-patch/" + p.Name, Digest: map[string]string{"sha256": p.SHA256}})
	}
	for _, m := range in.GoModules {
		// dirHash is in-toto's name for the go command's h1: module hash.
		deps = append(deps, ResourceDescriptor{Name: "gomod/" + m.Path, URI: "pkg:golang/" + m.Path + "@" + m.Version,
			Digest: map[string]string{"dirHash": m.Sum}})
	}
	return deps
}

// gitURI is an SPDX-style download location, repository@commit ("" when
// the repository is unknown, as for a local C API checkout).
func gitURI(repo, commit string) string {
	if repo == "" {
		return ""
	}
	if commit == "" {
		return redact.URL(repo)
	}
	return "git+" + redact.URL(repo) + "@" + commit
}

// buildkitDependencies reads the resolved dependencies (SLSA v1) or
// materials (SLSA v0.2) of BuildKit's provenance statement: the images and
// sources it pulled, by digest.
func buildkitDependencies(data []byte) []ResourceDescriptor {
	var s struct {
		Predicate struct {
			BuildDefinition struct {
				ResolvedDependencies []ResourceDescriptor `json:"resolvedDependencies"`
			} `json:"buildDefinition"`
			Materials []ResourceDescriptor `json:"materials"`
		} `json:"predicate"`
	}
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	var out []ResourceDescriptor
	for _, d := range append(s.Predicate.BuildDefinition.ResolvedDependencies, s.Predicate.Materials...) {
		if len(d.Digest) == 0 {
			continue // a build context by name: ours are listed by digest above
		}
		out = append(out, ResourceDescriptor{URI: d.URI, Digest: d.Digest})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// AttachProvenance pushes ps as a referrer of the index, as Attach does
// the report, and returns the referrer's digest.
func AttachProvenance(ctx context.Context, repository, indexDigest string, ps *ProvenanceStatement, ro image.RegistryOptions) (string, error) {
	data, err := json.Marshal(ps)
	if err != nil {
		return "", err
	}
	return attachStatement(ctx, repository, indexDigest, data, SLSAProvenanceV1, ro)
}

// readProvenance reads our provenance referrers of the index: the one
// they agree on is kept (a referrer that cannot be read, or is about
// another subject, or two that disagree, are rejected: verify fails).
func (img *Image) readProvenance(ctx context.Context, repo name.Repository, index v1.Hash, candidates []v1.Descriptor, opts []remote.Option) error {
	for _, d := range candidates {
		raw, content, err := readStatement(repo.Digest(d.Digest.String()), index, SLSAProvenanceV1, false, opts)
		if err != nil {
			if ctx.Err() != nil || registryFailure(err) {
				return fmt.Errorf("provenance referrer %s of %s: %w", d.Digest, index, err)
			}
			img.rejectProvenance(d.Digest.String(), redact.Text(err.Error()))
			continue
		}
		switch {
		case img.ProvenanceStatement == "":
			img.ProvenanceDigest, img.ProvenanceStatement, img.provenanceRaw = d.Digest.String(), content, raw
		case img.ProvenanceStatement != content:
			img.rejectProvenance(d.Digest.String(), fmt.Sprintf("it disagrees with %s", img.ProvenanceDigest))
		}
	}
	return nil
}

func (img *Image) rejectProvenance(digest, why string) {
	msg := fmt.Sprintf("skipped provenance referrer %s: %s", digest, why)
	img.Rejected = append(img.Rejected, msg)
	img.Warnings = append(img.Warnings, msg)
}
