package attest

// DefaultGeneratorImage is the SBOM generator BuildKit's Dockerfile
// frontend pulls when none is named (frontend/attestations in BuildKit).
const DefaultGeneratorImage = defaultGenerator + ":stable-1"

// GeneratorImage is the SBOM generator image the solve will pull; "" when
// no SBOM is asked for.
func (r Request) GeneratorImage() string {
	switch {
	case !r.SBOM:
		return ""
	case r.SBOMGenerator != "":
		return r.SBOMGenerator
	}
	return DefaultGeneratorImage
}
