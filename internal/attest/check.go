package attest

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/epp-build/epp-build/internal/image"
	"github.com/epp-build/epp-build/internal/textsafe"
)

// Want is what Check requires of an image.
type Want struct {
	Provenance bool // every platform has a SLSA provenance attestation
	SBOM       bool // every platform has an SPDX SBOM attestation
	Report     bool // the index has the epp-build report referrer
}

// WantAll requires every attestation epp-build attaches by default.
var WantAll = Want{Provenance: true, SBOM: true, Report: true}

// Want is what a build with this request must have attached.
func (r Request) Want(report bool) Want {
	return Want{Provenance: r.Provenance, SBOM: r.SBOM, Report: report}
}

// VerifyError lists every attestation that is missing or does not match
// the index.
type VerifyError struct {
	Ref      string
	Problems []string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("attestations of %s: %s", e.Ref, strings.Join(e.Problems, "; "))
}

// Check compares what the index holds with want: each platform's
// attestation manifest and predicates, the report referrer, its subject
// and the platform digests it records. It returns a *VerifyError naming
// each missing attestation and its platform.
func (img *Image) Check(want Want) error {
	var problems []string
	if len(img.Platforms) == 0 {
		problems = append(problems, "the index has no platform image")
	}
	for _, p := range img.Platforms {
		for _, u := range p.Unfetched {
			problems = append(problems, fmt.Sprintf("%s (%s) %s", p.Platform, p.Digest, u))
		}
		if (want.Provenance || want.SBOM) && p.AttestationManifest == "" {
			problems = append(problems, fmt.Sprintf("%s (%s) has no attestation manifest in the index", p.Platform, p.Digest))
			continue
		}
		if want.Provenance && !p.Provenance {
			problems = append(problems, fmt.Sprintf("%s (%s) has no SLSA provenance attestation", p.Platform, p.Digest))
		}
		if want.SBOM && !p.SBOM {
			problems = append(problems, fmt.Sprintf("%s (%s) has no SBOM attestation (%s)", p.Platform, p.Digest, SPDXPredicate))
		}
	}
	switch {
	case want.Report && len(img.Conflicting) > 0:
		problems = append(problems, fmt.Sprintf("%d report attestations claim the index %s and disagree (%s): at most one was pushed by its build; remove the others",
			len(img.Conflicting), img.IndexDigest, strings.Join(img.Conflicting, ", ")))
	case want.Report:
		problems = append(problems, img.checkReport()...)
	}
	if want.Report {
		problems = append(problems, img.Rejected...)
	}
	problems = append(problems, img.checkScans()...)
	if len(problems) > 0 {
		sort.Strings(problems)
		return &VerifyError{Ref: img.Ref, Problems: problems}
	}
	return nil
}

func (img *Image) checkReport() []string {
	s := img.Report
	if s == nil {
		return []string{fmt.Sprintf("the index %s has no epp-build report attestation (a referrer with predicate type %s)", img.IndexDigest, PredicateType)}
	}
	var problems []string
	_, hex, _ := strings.Cut(img.IndexDigest, ":")
	if len(s.Subject) != 1 || s.Subject[0].Digest["sha256"] != hex {
		problems = append(problems, fmt.Sprintf("the report attestation %s is not about the index %s (subject %v)", img.ReportDigest, img.IndexDigest, s.Subject))
	}
	if got := s.Predicate.Outputs.IndexDigest; got != img.IndexDigest {
		problems = append(problems, fmt.Sprintf("the report records index %s, the registry holds %s", got, img.IndexDigest))
	}
	recorded := map[string]string{}
	for _, p := range s.Predicate.Outputs.Images {
		recorded[p.Platform] = p.Digest
	}
	for _, p := range img.Platforms {
		switch got, ok := recorded[p.Platform]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("the report does not record %s", p.Platform))
		case got != p.Digest:
			problems = append(problems, fmt.Sprintf("the report records %s as %s, the index holds %s", p.Platform, got, p.Digest))
		}
		delete(recorded, p.Platform)
	}
	for p := range recorded {
		problems = append(problems, fmt.Sprintf("the report records %s, which the index lacks", p))
	}
	return problems
}

// Verify reads the image at ref, every blob of it included (ReadAll), and
// checks it has every attestation epp-build attaches and nothing it could
// not fetch (a *VerifyError when one is missing or wrong).
func Verify(ctx context.Context, ref string, ro image.RegistryOptions) (*Image, error) {
	img, err := ReadAll(ctx, ref, ro)
	if err != nil {
		return nil, err
	}
	if err := img.Check(WantAll); err != nil {
		return nil, err
	}
	return img, nil
}

// WriteVerified says what a verified image holds (its warnings are for
// stderr: WriteWarnings).
func WriteVerified(w io.Writer, ref string, img *Image) {
	fmt.Fprintf(w, "verified %s: index %s, %d platforms with provenance and SBOM, report %s\n",
		ref, img.IndexDigest, len(img.Platforms), img.ReportDigest)
	if img.Signature != "" {
		fmt.Fprintf(w, "signed: the report's statement %s, envelope %s\n", img.ReportStatement, img.Signature)
	}
	for _, s := range img.Scans {
		fmt.Fprintf(w, "vulnerability scan %s: each platform's %s is the binary it scanned\n", s.Digest, textsafe.Escape(s.Statement.Predicate.Scanner.Result.Binary))
	}
}
