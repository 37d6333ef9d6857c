package attest

import (
	"fmt"
	"strings"
)

// Request is which of BuildKit's own attestations a build asks for,
// parsed from the --provenance and --sbom flags as buildx spells them.
type Request struct {
	Provenance     bool
	ProvenanceMode string // min or max
	SBOM           bool
	// SBOMGenerator is the scanner image; "" is BuildKit's default
	// (docker/buildkit-syft-scanner).
	SBOMGenerator string
}

// DefaultRequest is what a build asks for without flags: provenance
// mode=max and an SBOM from BuildKit's default generator.
var DefaultRequest = Request{Provenance: true, ProvenanceMode: "max", SBOM: true}

// FlagError is a --provenance or --sbom value that cannot be read.
type FlagError struct {
	Flag, Value, Want string
}

func (e *FlagError) Error() string {
	return fmt.Sprintf("--%s=%q: want %s", e.Flag, e.Value, e.Want)
}

const (
	provenanceWant = "true, false or mode=min|max"
	sbomWant       = "true, false or generator=IMAGE"
)

// ParseRequest reads the --provenance and --sbom values ("" keeps the
// default): --provenance=true|false|mode=min|max, --sbom=true|false|
// generator=IMAGE.
func ParseRequest(provenance, sbom string) (Request, error) {
	r := DefaultRequest
	switch v := strings.TrimSpace(provenance); {
	case v == "" || v == "true" || v == "1":
	case v == "false" || v == "0":
		r.Provenance, r.ProvenanceMode = false, ""
	default:
		mode, ok := strings.CutPrefix(v, "mode=")
		if !ok || (mode != "min" && mode != "max") {
			return Request{}, &FlagError{Flag: "provenance", Value: provenance, Want: provenanceWant}
		}
		r.ProvenanceMode = mode
	}
	switch v := strings.TrimSpace(sbom); {
	case v == "" || v == "true" || v == "1":
	case v == "false" || v == "0":
		r.SBOM = false
	default:
		gen, ok := strings.CutPrefix(v, "generator=")
		if !ok || gen == "" || strings.ContainsAny(gen, ", \t") {
			return Request{}, &FlagError{Flag: "sbom", Value: sbom, Want: sbomWant}
		}
		r.SBOMGenerator = gen
	}
	return r, nil
}

// FrontendAttrs are the attest:* frontend attributes for the request,
// without the "attest:" prefix.
func (r Request) FrontendAttrs() map[string]string {
	attrs := map[string]string{}
	if r.Provenance {
		attrs["provenance"] = "mode=" + r.ProvenanceMode
	}
	if r.SBOM {
		attrs["sbom"] = ""
		if r.SBOMGenerator != "" {
			attrs["sbom"] = "generator=" + r.SBOMGenerator
		}
	}
	return attrs
}

// defaultGenerator is the image BuildKit uses for attest:sbom without a
// generator.
const defaultGenerator = "docker/buildkit-syft-scanner"

// GeneratorError is a solve that failed on the SBOM generator image:
// BuildKit could not pull or run it.
type GeneratorError struct {
	Image string
	Err   error
}

func (e *GeneratorError) Error() string {
	return fmt.Sprintf("SBOM generator %s: %v; pass --sbom generator=IMAGE (a generator in a registry BuildKit can reach) or --sbom=false", e.Image, e.Err)
}

func (e *GeneratorError) Unwrap() error { return e.Err }

// ExplainSolveError says which flag to change when a solve failed on the
// SBOM generator image; other errors are returned as they are.
func (r Request) ExplainSolveError(err error) error {
	if err == nil || !r.SBOM {
		return err
	}
	gen := r.SBOMGenerator
	if gen == "" {
		gen = defaultGenerator
	}
	if strings.Contains(err.Error(), gen) {
		return &GeneratorError{Image: gen, Err: err}
	}
	return err
}
