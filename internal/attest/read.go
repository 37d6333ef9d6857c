package attest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/netclient"
	"github.com/epp-build/epp-build/internal/redact"
)

// Platform is one platform image of an index and the attestations
// BuildKit attached to it.
type Platform struct {
	Platform string `json:"platform"`
	Digest   string `json:"digest"`
	// AttestationManifest is the digest of the index entry that holds
	// this platform's attestations ("" when it has none).
	AttestationManifest string   `json:"attestationManifest,omitempty"`
	PredicateTypes      []string `json:"predicateTypes"`
	Provenance          bool     `json:"provenance"`
	SBOM                bool     `json:"sbom"`
	// Unfetched is every manifest or blob of this platform (its image,
	// its attestation manifest and their blobs) that could not be fetched
	// or did not match its digest.
	Unfetched []Unfetched `json:"unfetched,omitempty"`
	// buildkitProvenance is BuildKit's provenance statement, as fetched.
	buildkitProvenance *fetched
}

// Image is what an index says about itself: its platforms, their
// attestations and the epp-build report referrer.
type Image struct {
	Ref         string     `json:"ref"`
	Repository  string     `json:"repository"`
	IndexDigest string     `json:"indexDigest"`
	Platforms   []Platform `json:"platforms"`
	// ReportDigest is the report referrer's manifest digest ("" when the
	// index has no report attestation).
	ReportDigest string `json:"reportDigest,omitempty"`
	// Report is null in JSON when the index has none: the document says
	// "none" as the text does, rather than leaving the field out.
	Report *Statement `json:"report"`
	// ReportStatement is the digest of the report's statement blob: what
	// a signature of the report signs.
	ReportStatement string `json:"reportStatement,omitempty"`
	// ProvenanceDigest is epp-build's SLSA provenance referrer ("" when
	// the index has none) and ProvenanceStatement its statement blob.
	ProvenanceDigest    string `json:"provenanceDigest,omitempty"`
	ProvenanceStatement string `json:"provenanceStatement,omitempty"`
	provenanceRaw       []byte
	// Signature is the DSSE envelope (a layer of the cosign attestation
	// image) that CheckSignature found over the report ("" unchecked).
	Signature string `json:"signature,omitempty"`
	reportRaw []byte
	// Conflicting are report referrers that each record this index and
	// disagree; none of them is Report.
	Conflicting []string `json:"conflictingReports,omitempty"`
	// Rejected are the other report referrers of this index, each with
	// why it was not believed: verify fails on any of them, since every
	// report attached to the index must say the same.
	Rejected []string `json:"rejectedReports,omitempty"`
	// Scans are the vulnerability scan referrers of the index (build
	// --vulns), each checked against it by Check.
	Scans []Scan `json:"vulnerabilityScans,omitempty"`
	// binaryDigest reads a file of a platform image, when the layers are
	// read (ReadAll): the scans' binaries are compared with it.
	binaryDigest func(platform, file string) (string, error)
	// Warnings name the referrers skipped, and why.
	Warnings []string `json:"warnings,omitempty"`
}

// maxStatement bounds a statement blob read from a registry.
const maxStatement = 16 << 20

// Read reads the index at ref (a tag or digest), BuildKit's attestation
// manifests in it and the epp-build report referrer, from the registry
// alone. Every attestation manifest and blob, every report referrer and
// each platform image's manifest and config are fetched and checked
// against their digests; the platform images' layers are asked for (HEAD)
// without being downloaded. What could not be fetched is in each
// platform's Unfetched.
func Read(ctx context.Context, ref string, ro image.RegistryOptions) (*Image, error) {
	return read(ctx, ref, ro, false)
}

// ReadAll is Read that also downloads every layer of every platform image
// and checks its digest: what verify vouches for, it has read.
func ReadAll(ctx context.Context, ref string, ro image.RegistryOptions) (*Image, error) {
	return read(ctx, ref, ro, true)
}

func read(ctx context.Context, ref string, ro image.RegistryOptions, allLayers bool) (*Image, error) {
	r, err := ParseReference(ref, ro)
	if err != nil {
		return nil, err
	}
	registry := r.Context().RegistryStr()
	opts := ro.RemoteOptions(ctx)
	desc, err := remote.Get(r, opts...)
	if notFound(err) {
		return nil, noSuchImage(r, err, opts)
	}
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("read %s: %w", redact.Text(ref), err))
	}
	if !desc.MediaType.IsIndex() {
		return nil, &VerifyError{Ref: ref, Problems: []string{fmt.Sprintf("%s is a single %s, not an image index: epp-build pushes an index with attestations", desc.Digest, desc.MediaType)}}
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("read index %s: %w", redact.Text(ref), err))
	}
	idx = image.RemoteIndex(idx, r.Context(), opts)
	mode := fetchMode{imageLayers: allLayers, headBlob: func(h v1.Hash) (int64, error) {
		l, err := remote.Layer(r.Context().Digest(h.String()), opts...)
		if err != nil {
			return 0, err
		}
		return l.Size()
	}}
	platforms, err := readIndex(idx, mode)
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("%s: %w", redact.Text(ref), err))
	}
	out := &Image{Ref: ref, Repository: r.Context().Name(), IndexDigest: desc.Digest.String(), Platforms: platforms}
	refs, err := remote.Referrers(r.Context().Digest(desc.Digest.String()), opts...)
	if err != nil {
		return nil, image.RegistryError(registry, fmt.Errorf("list the referrers of %s: %w", desc.Digest, err))
	}
	rm, err := refs.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("referrers of %s: %w", desc.Digest, err)
	}
	var candidates, provenance, scans []v1.Descriptor
	for _, d := range rm.Manifests {
		if d.ArtifactType != MediaType {
			continue
		}
		switch d.Annotations[predicateAnnotation] {
		case PredicateType:
			candidates = append(candidates, d)
		case SLSAProvenanceV1:
			provenance = append(provenance, d)
		case VulnsPredicate:
			scans = append(scans, d)
		}
	}
	byDigest := func(ds []v1.Descriptor) {
		sort.Slice(ds, func(i, j int) bool { return ds[i].Digest.String() < ds[j].Digest.String() })
	}
	byDigest(candidates)
	byDigest(provenance)
	byDigest(scans)
	if err := out.chooseReport(ctx, r.Context(), desc.Digest, candidates, opts); err != nil {
		return nil, image.RegistryError(registry, err)
	}
	if err := out.readProvenance(ctx, r.Context(), desc.Digest, provenance, opts); err != nil {
		return nil, image.RegistryError(registry, err)
	}
	if err := out.readScans(ctx, r.Context(), desc.Digest, scans, opts); err != nil {
		return nil, image.RegistryError(registry, err)
	}
	if allLayers {
		out.binaryDigest = func(platform, file string) (string, error) {
			for _, p := range out.Platforms {
				if p.Platform != platform {
					continue
				}
				h, err := v1.NewHash(p.Digest)
				if err != nil {
					return "", err
				}
				pi, err := idx.Image(h)
				if err != nil {
					return "", err
				}
				return image.ImageFileDigest(pi, file)
			}
			return "", fmt.Errorf("no %s image in the index", platform)
		}
	}
	return out, nil
}

// referrer is one report referrer read and checked against the index.
type referrer struct {
	digest string
	stmt   *Statement
	// content is the statement blob's digest: two referrers with the
	// same content say the same thing.
	content string
	raw     []byte
}

// chooseReport reads every report referrer of the index and picks the one
// that is this index's. Anyone who can push to the repository can attach
// a referrer, so a referrer is believed only as far as it checks out:
//   - one that cannot be read, is not a report or whose subject (manifest
//     or statement) is not this index is skipped with a warning naming it,
//     and the others are read on;
//   - of the rest, those that record this index and its platform images
//     are preferred; when they say different things, none is shown as the
//     report (Conflicting names them, and Check fails);
//   - when none records the index's images, the first is kept so that
//     Check names how it differs.
//
// Only a failure of the registry itself (auth, 5xx, a deadline) is an
// error.
func (img *Image) chooseReport(ctx context.Context, repo name.Repository, index v1.Hash, candidates []v1.Descriptor, opts []remote.Option) error {
	var matching, other []referrer
	for _, d := range candidates {
		stmt, raw, content, err := readReport(repo.Digest(d.Digest.String()), index, opts)
		if err != nil {
			if ctx.Err() != nil || registryFailure(err) {
				return fmt.Errorf("report attestation %s of %s: %w", d.Digest, index, err)
			}
			img.reject(d.Digest.String(), redact.Text(err.Error()))
			continue
		}
		rep := referrer{digest: d.Digest.String(), stmt: stmt, content: content, raw: raw}
		if img.recordsThisIndex(stmt) {
			matching = append(matching, rep)
		} else {
			other = append(other, rep)
		}
	}
	pick := other
	if len(matching) > 0 {
		pick = matching
		for _, o := range other {
			img.reject(o.digest, "it records other images than the index holds")
		}
	}
	if len(pick) == 0 {
		return nil
	}
	for _, p := range pick[1:] {
		if p.content != pick[0].content {
			for _, c := range pick {
				img.Conflicting = append(img.Conflicting, c.digest)
			}
			img.Warnings = append(img.Warnings, fmt.Sprintf("%d report referrers claim this index and disagree (%s): none is shown as its report; remove the one this build did not push",
				len(pick), strings.Join(img.Conflicting, ", ")))
			return nil
		}
	}
	if len(matching) == 0 {
		for _, o := range other[1:] {
			img.reject(o.digest, fmt.Sprintf("another one (%s) is shown", other[0].digest))
		}
	}
	img.ReportDigest, img.Report = pick[0].digest, pick[0].stmt
	img.ReportStatement, img.reportRaw = pick[0].content, pick[0].raw
	return nil
}

// recordsThisIndex is whether stmt records the index and exactly its
// platform images.
func (img *Image) recordsThisIndex(stmt *Statement) bool {
	o := stmt.Predicate.Outputs
	if o.IndexDigest != img.IndexDigest || len(o.Images) != len(img.Platforms) {
		return false
	}
	want := map[string]string{}
	for _, p := range img.Platforms {
		want[p.Platform] = p.Digest
	}
	for _, p := range o.Images {
		if d, ok := want[p.Platform]; !ok || d != p.Digest {
			return false
		}
		delete(want, p.Platform)
	}
	return len(want) == 0
}

// registryFailure is an error of the registry rather than of a referrer:
// refused credentials, a server error, a deadline.
func registryFailure(err error) bool {
	var auth *image.RegistryAuthError
	var server *image.RegistryServerError
	var timeout *netclient.TimeoutError
	typed := image.RegistryError("", err)
	return errors.As(typed, &auth) || errors.As(typed, &server) || errors.As(err, &timeout)
}

// readReport reads the report referrer ref of the index and returns its
// statement, its bytes and the statement blob's digest. A referrer whose manifest or
// statement is about another subject is refused: it is not this index's
// report, whatever the referrers list says.
func readReport(ref name.Digest, index v1.Hash, opts []remote.Option) (*Statement, []byte, string, error) {
	data, content, err := readStatement(ref, index, PredicateType, true, opts)
	if err != nil {
		return nil, nil, "", err
	}
	var stmt Statement
	if err := json.Unmarshal(data, &stmt); err != nil {
		return nil, nil, "", fmt.Errorf("decode the in-toto statement: %w", err)
	}
	return &stmt, data, content, nil
}

// readStatement reads a statement referrer of the index: its manifest,
// config and one statement blob, each checked against its digest. The
// manifest's subject must be the index, the statement's predicate type
// predicateType, and its subjects the index alone (only) or include it.
// It returns the statement's bytes and the blob's digest.
func readStatement(ref name.Digest, index v1.Hash, predicateType string, only bool, opts []remote.Option) ([]byte, string, error) {
	img, err := remote.Image(ref, opts...)
	if err != nil {
		return nil, "", err
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, "", err
	}
	if m.Subject == nil || m.Subject.Digest != index {
		return nil, "", fmt.Errorf("its manifest's subject is %s, not the index", subjectOf(m.Subject))
	}
	if len(m.Layers) != 1 || string(m.Layers[0].MediaType) != MediaType {
		return nil, "", fmt.Errorf("want one %s layer, found %d layers", MediaType, len(m.Layers))
	}
	if _, err := fetchBlob(img, m.Config, false, maxStatement); err != nil {
		return nil, "", &blobError{what: "config", digest: m.Config.Digest.String(), err: err}
	}
	data, err := fetchBlob(img, m.Layers[0], true, maxStatement)
	if err != nil {
		return nil, "", &blobError{what: "statement", digest: m.Layers[0].Digest.String(), err: err}
	}
	var head struct {
		PredicateType string    `json:"predicateType"`
		Subject       []Subject `json:"subject"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, "", fmt.Errorf("decode the in-toto statement: %w", err)
	}
	if head.PredicateType != predicateType {
		return nil, "", fmt.Errorf("predicate type %q, want %q", head.PredicateType, predicateType)
	}
	if (only && len(head.Subject) != 1) || !about(head.Subject, index.Hex) {
		return nil, "", fmt.Errorf("its statement is about %v, not the index", head.Subject)
	}
	return data, m.Layers[0].Digest.String(), nil
}

func subjectOf(d *v1.Descriptor) string {
	if d == nil {
		return "missing"
	}
	return d.Digest.String()
}

// reject records a report referrer that was not believed, and why.
func (img *Image) reject(digest, why string) {
	msg := fmt.Sprintf("skipped report referrer %s: %s", digest, why)
	img.Rejected = append(img.Rejected, msg)
	img.Warnings = append(img.Warnings, msg)
}

// ReadIndex lists the platform images of an index (from an OCI tarball
// or in memory) and the predicate types of the attestation manifest
// BuildKit attached to each, fetching every manifest and blob it names and
// checking each against its digest; what cannot be fetched is in each
// platform's Unfetched.
func ReadIndex(idx v1.ImageIndex) ([]Platform, error) {
	return readIndex(idx, fetchMode{imageLayers: true})
}

func readIndex(idx v1.ImageIndex, mode fetchMode) ([]Platform, error) {
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	atts := map[string]v1.Descriptor{}
	// An index of no platform images has an empty list, which JSON shows
	// as [], not null.
	platforms := []Platform{}
	var descs []v1.Descriptor
	for _, d := range im.Manifests {
		if d.Annotations[referenceType] == attestationManifest {
			atts[d.Annotations[referenceDigest]] = d
			continue
		}
		if d.Platform == nil || d.Platform.OS == "unknown" {
			continue
		}
		platforms = append(platforms, Platform{Platform: d.Platform.OS + "/" + d.Platform.Architecture, Digest: d.Digest.String()})
		descs = append(descs, d)
	}
	for i := range platforms {
		p := &platforms[i]
		p.PredicateTypes = []string{}
		missing, err := mode.checkImage(idx, descs[i])
		if err != nil {
			return nil, fmt.Errorf("%s image %s: %w", p.Platform, p.Digest, err)
		}
		p.Unfetched = append(p.Unfetched, missing...)
		d, ok := atts[p.Digest]
		if !ok {
			continue
		}
		p.AttestationManifest = d.Digest.String()
		types, missing, prov, err := mode.checkAttestations(idx, d, p.Digest)
		if err != nil {
			return nil, fmt.Errorf("attestation manifest %s of %s: %w", d.Digest, p.Platform, err)
		}
		p.Unfetched = append(p.Unfetched, missing...)
		p.buildkitProvenance = prov
		sort.Strings(types)
		p.PredicateTypes = types
		for _, t := range types {
			p.Provenance = p.Provenance || strings.HasPrefix(t, ProvenancePrefix)
			p.SBOM = p.SBOM || t == SPDXPredicate
		}
	}
	sort.Slice(platforms, func(i, j int) bool { return platforms[i].Platform < platforms[j].Platform })
	return platforms, nil
}
