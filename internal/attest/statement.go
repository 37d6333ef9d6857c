// Package attest is the attestation stage: the flags that turn on
// BuildKit's own SBOM and SLSA provenance attestations, the epp-build
// report as an in-toto statement attached to the image index as an OCI 1.1
// referrer, and reading all of them back from a registry (or an OCI
// tarball) to inspect and verify an image.
package attest

import (
	"fmt"
	"strings"

	"github.com/epp-build/epp-build/internal/report"
)

// Media and predicate types.
const (
	// PredicateType is the epp-build report predicate.
	PredicateType = "https://github.com/epp-build/epp-build/report/v1"
	// StatementType is the in-toto statement version the report uses.
	StatementType = "https://in-toto.io/Statement/v1"
	// MediaType is an in-toto statement blob and the report referrer's
	// artifactType.
	MediaType = "application/vnd.in-toto+json"
	// SPDXPredicate is BuildKit's SBOM predicate.
	SPDXPredicate = "https://spdx.dev/Document"
	// ProvenancePrefix starts every SLSA provenance predicate type.
	ProvenancePrefix = "https://slsa.dev/provenance/"

	predicateAnnotation = "in-toto.io/predicate-type"
	referenceType       = "vnd.docker.reference.type"
	referenceDigest     = "vnd.docker.reference.digest"
	attestationManifest = "attestation-manifest"
)

// Statement is an in-toto v1 statement about the image index.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject names what a statement is about.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate is what went into the image and what came out.
type Predicate struct {
	// Inputs are the build report's inputs: upstream (redacted) and
	// commit, every patch's name and SHA-256, the C API source, commit,
	// patches and features, the toolchains and the platforms.
	Inputs report.Inputs `json:"inputs"`
	// Outputs are the index and each platform image's digest.
	Outputs Outputs `json:"outputs"`
}

// Outputs are the digests the build produced.
type Outputs struct {
	IndexDigest string          `json:"indexDigest"`
	Images      []PlatformImage `json:"images"`
}

// PlatformImage is one platform's manifest in the index.
type PlatformImage struct {
	Platform string `json:"platform"`
	Digest   string `json:"digest"`
}

// NewStatement makes the report statement for the index pushed to
// repository (REGISTRY/REPO, no tag).
func NewStatement(repository, indexDigest string, in report.Inputs, images []PlatformImage) (*Statement, error) {
	algo, hex, ok := strings.Cut(indexDigest, ":")
	if !ok || algo != "sha256" || len(hex) != 64 {
		return nil, fmt.Errorf("report attestation: index digest %q is not sha256:<64 hex>", indexDigest)
	}
	if in.Patches == nil {
		in.Patches = []report.Patch{}
	}
	if images == nil {
		images = []PlatformImage{}
	}
	return &Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: repository, Digest: map[string]string{"sha256": hex}}},
		PredicateType: PredicateType,
		Predicate:     Predicate{Inputs: in, Outputs: Outputs{IndexDigest: indexDigest, Images: images}},
	}, nil
}
